import { ShopCopies, SHOP_COPIES, type BusClient, type ShopCopiesOptions } from '@pl/bus';
import { subjects, type Identity, type ShopView } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import { LINKS_SERVICE_IDENTITY } from '../domain/access';
import type { ShopDirectory } from '../domain/ports';

/**
 * The same rule the shops service applies to a merchant identity: only its own shops, and a cashier key
 * only its one shop. Platform services see every shop.
 */
function assertShopVisible(shop: ShopView, identity: Identity): void {
  if (identity.kind !== 'merchant') return;
  if (shop.merchant_id !== identity.merchant_id) throw forbidden('Shop belongs to another merchant');
  if (identity.shop_id !== undefined && identity.shop_id !== shop.id) throw forbidden('The cashier key is for another shop');
}

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
    assertShopVisible(shop, identity);
    return shop;
  }
}
