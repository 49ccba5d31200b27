import type { BusClient } from '@pl/bus';
import { broadcasts, subjects, type Identity, type ShopView } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import { LINKS_SERVICE_IDENTITY } from '../domain/access';
import type { ShopDirectory } from '../domain/ports';

export interface ShopCacheOptions {
  /** Longest a copy is used, should a change notice be lost (NATS delivers at most once). */
  ttlMs: number;
  /** Shops kept at most; the oldest fetched goes first. */
  maxEntries: number;
  now?: () => number;
}

/** Documented in docs/design-decisions.md ("Shop copies in the links service"). */
export const SHOP_CACHE: ShopCacheOptions = { ttlMs: 5000, maxEntries: 10_000 };

interface Entry {
  shop: ShopView;
  expiresAt: number;
}

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
 * Shops over NATS, with short-lived copies so a create does not cost a round trip to the shops service.
 * Copies are fetched with this service's identity and shared by every caller, so the access rule is applied
 * here to each caller. A copy goes as soon as the shops service announces a change of that shop
 * (`shops.changed`), after `ttlMs` at the latest, and all go when the NATS connection comes back from a break.
 * Unknown shops and failures are never kept.
 */
export class ShopClient implements ShopDirectory {
  private readonly entries = new Map<number, Entry>();
  private readonly inFlight = new Map<number, Promise<ShopView>>();
  /** Moves on every change notice, so a fetch that raced with one does not store what it read. */
  private generation = 0;
  private readonly now: () => number;

  constructor(
    private readonly bus: BusClient,
    private readonly options: ShopCacheOptions = SHOP_CACHE,
  ) {
    this.now = options.now ?? Date.now;
    bus.subscribe(broadcasts.shopsChanged, ({ shop_id }) => this.forget(shop_id), () => this.forget(null));
  }

  async getShop(shopId: number, identity: Identity): Promise<ShopView> {
    const shop = await this.load(shopId);
    assertShopVisible(shop, identity);
    return shop;
  }

  /** Drops the copy of one shop, or of every shop for null. */
  forget(shopId: number | null): void {
    this.generation += 1;
    if (shopId === null) {
      this.entries.clear();
      this.inFlight.clear();
    } else {
      this.entries.delete(shopId);
      this.inFlight.delete(shopId);
    }
  }

  private load(shopId: number): Promise<ShopView> {
    const asked = this.now();
    const entry = this.entries.get(shopId);
    if (entry && entry.expiresAt > asked) return Promise.resolve(entry.shop);
    // Concurrent creates for one shop share one request.
    const pending = this.inFlight.get(shopId);
    if (pending) return pending;
    const generation = this.generation;
    const fetched = this.bus.request(subjects.shopsGet, { shop_id: shopId }, LINKS_SERVICE_IDENTITY).then(
      (shop) => {
        if (this.inFlight.get(shopId) === fetched) this.inFlight.delete(shopId);
        if (this.generation === generation) this.remember(shopId, { shop, expiresAt: asked + this.options.ttlMs });
        return shop;
      },
      (e: unknown) => {
        if (this.inFlight.get(shopId) === fetched) this.inFlight.delete(shopId);
        throw e;
      },
    );
    this.inFlight.set(shopId, fetched);
    return fetched;
  }

  private remember(shopId: number, entry: Entry): void {
    this.entries.delete(shopId);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(shopId, entry);
  }
}
