import { ShopCopies, SHOP_COPIES, type BusClient, type ShopCopiesOptions } from '@pl/bus';
import { shopAccessDenial, subjects, type Identity, type ShopView } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import { LINKS_SERVICE_IDENTITY } from '../domain/access';
import type { ShopDirectory } from '../domain/ports';

/**
 * Shops over NATS, with short-lived copies so a create does not cost a round trip to the shops service
 * (documented in docs/design-decisions.md, "Shop copies in the links service"). Copies are fetched with this
 * service's identity and shared by every caller, so the access rule is applied here to each caller.
 */
export class ShopClient implements ShopDirectory {
  private readonly copies: ShopCopies<ShopView>;

  constructor(bus: BusClient, options: ShopCopiesOptions = SHOP_COPIES) {
    this.copies = new ShopCopies(bus, (shopId) => bus.request(subjects.shopsGet, { shop_id: shopId }, LINKS_SERVICE_IDENTITY), options);
  }

  async getShop(shopId: number, identity: Identity): Promise<ShopView> {
    const shop = await this.copies.get(shopId);
    const denial = shopAccessDenial(identity, shop.id, shop.merchant_id);
    if (denial) throw forbidden(denial);
    return shop;
  }
}
