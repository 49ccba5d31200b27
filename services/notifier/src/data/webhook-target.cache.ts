import type { BusClient } from '@pl/bus';
import { broadcasts } from '@pl/contracts';
import type { WebhookTarget, WebhookTargetSource } from '../domain/delivery';

export interface TargetCacheOptions {
  /** Longest a copy is used, should a change notice be lost (NATS delivers at most once). */
  ttlMs: number;
  /** Shops kept at most; the oldest fetched goes first. */
  maxEntries: number;
  now?: () => number;
}

/**
 * 5 s, as the links service's shop copies: a changed URL or secret is normally dropped within moments of
 * the change (the shops service announces it), and after a lost notice an attempt may use the old target
 * for at most this long (a receiver that rejects the old signature sees the next attempt with the new one).
 */
export const TARGET_CACHE: TargetCacheOptions = { ttlMs: 5000, maxEntries: 10_000 };

interface Entry {
  target: WebhookTarget;
  expiresAt: number;
}

/**
 * Webhook targets with short-lived copies, so an attempt does not cost a round trip to the shops service
 * (and its secret decryption) each time. A copy goes as soon as the shops service announces a change of
 * that shop (`shops.changed`), after `ttlMs` at the latest, and all go when the NATS connection comes back
 * from a break. Concurrent look-ups of one shop share one request; failures are never kept. The secrets
 * stay in this process's memory only, as they did for the length of an attempt before.
 */
export class CachedWebhookTargets implements WebhookTargetSource {
  private readonly entries = new Map<number, Entry>();
  private readonly inFlight = new Map<number, Promise<WebhookTarget>>();
  /** Moves on every change notice, so a look-up that raced with one does not store what it read. */
  private generation = 0;
  private readonly now: () => number;

  constructor(
    private readonly source: WebhookTargetSource,
    bus: Pick<BusClient, 'subscribe'>,
    private readonly options: TargetCacheOptions = TARGET_CACHE,
  ) {
    this.now = options.now ?? Date.now;
    bus.subscribe(broadcasts.shopsChanged, ({ shop_id }) => this.forget(shop_id), () => this.forget(null));
  }

  targetOf(shopId: number): Promise<WebhookTarget> {
    const asked = this.now();
    const entry = this.entries.get(shopId);
    if (entry && entry.expiresAt > asked) return Promise.resolve(entry.target);
    const pending = this.inFlight.get(shopId);
    if (pending) return pending;
    const generation = this.generation;
    const fetched = this.source.targetOf(shopId).then(
      (target) => {
        if (this.inFlight.get(shopId) === fetched) this.inFlight.delete(shopId);
        if (this.generation === generation) this.remember(shopId, { target, expiresAt: asked + this.options.ttlMs });
        return target;
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

  private remember(shopId: number, entry: Entry): void {
    this.entries.delete(shopId);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(shopId, entry);
  }
}
