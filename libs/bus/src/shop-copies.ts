import { LRUCache } from 'lru-cache';
import { broadcasts } from '@pl/contracts';
import type { BusClient } from './bus-client';

export interface ShopCopiesOptions {
  /** Longest a copy is used, should a change notice be lost (NATS delivers at most once). */
  ttlMs: number;
  /** Shops kept at most; the least recently used goes first. */
  maxEntries: number;
  now?: () => number;
}

/** 5 s: a copy is normally dropped moments after its shop changes; this bounds it after a lost notice. */
export const SHOP_COPIES: ShopCopiesOptions = { ttlMs: 5000, maxEntries: 10_000 };

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * Short-lived copies of something each shop has (its view, its webhook target) that a service fetches from
 * the shops service, so a busy shop does not cost a round trip per request. A copy goes as soon as the shops
 * service announces a change of that shop (`shops.changed`), after `ttlMs` at the latest, and all go on a
 * `null` notice or when the NATS connection comes back from a break (notices may have been missed).
 * Concurrent look-ups of one shop share one fetch; a fetch that raced with a notice still answers its
 * callers but is not kept; failures are never kept. (lru-cache's fetch would fail the callers of a fetch
 * raced by a deletion, or keep what it read.)
 */
export class ShopCopies<V> {
  private readonly entries: LRUCache<number, Entry<V>>;
  private readonly inFlight = new Map<number, Promise<V>>();
  /** Moves on every change notice, so a fetch that raced with one does not store what it read. */
  private generation = 0;
  private readonly now: () => number;

  constructor(
    bus: Pick<BusClient, 'subscribe'>,
    private readonly fetch: (shopId: number) => Promise<V>,
    private readonly options: ShopCopiesOptions = SHOP_COPIES,
  ) {
    this.now = options.now ?? Date.now;
    this.entries = new LRUCache({ max: options.maxEntries });
    bus.subscribe(
      broadcasts.shopsChanged,
      ({ shop_id }) => this.forget(shop_id),
      () => this.forget(null),
    );
  }

  get(shopId: number): Promise<V> {
    // Taken before the fetch, so a copy never outlives the TTL counted from before the shops service answered.
    const asked = this.now();
    const entry = this.entries.get(shopId);
    if (entry && entry.expiresAt > asked) return Promise.resolve(entry.value);
    const pending = this.inFlight.get(shopId);
    if (pending) return pending;
    const generation = this.generation;
    const fetched = this.fetch(shopId).then(
      (value) => {
        if (this.inFlight.get(shopId) === fetched) this.inFlight.delete(shopId);
        if (this.generation === generation) this.entries.set(shopId, { value, expiresAt: asked + this.options.ttlMs });
        return value;
      },
      (e: unknown) => {
        if (this.inFlight.get(shopId) === fetched) this.inFlight.delete(shopId);
        throw e;
      },
    );
    this.inFlight.set(shopId, fetched);
    return fetched;
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
}
