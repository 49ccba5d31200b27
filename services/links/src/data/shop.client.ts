import type { BusClient } from '@pl/bus';
import { subjects, type Identity, type ShopView } from '@pl/contracts';
import type { ShopDirectory } from '../domain/ports';

/** Shops over NATS, asked with the caller's own identity (or this service's) so the shops service judges access itself. */
export class ShopClient implements ShopDirectory {
  constructor(private readonly bus: BusClient) {}

  getShop(shopId: number, identity: Identity): Promise<ShopView> {
    return this.bus.request(subjects.shopsGet, { shop_id: shopId }, identity);
  }
}
