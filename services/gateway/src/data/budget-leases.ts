import { LRUCache } from 'lru-cache';

/** What the shared store answered after taking `n` requests from a budget. */
export interface Grant {
  allowed: boolean;
  /** Requests left in the window as this replica sees it. */
  remaining: number;
  msBeforeNext: number;
}

/** Takes `n` requests from the budget of `key` in the shared store (Redis); throws when the store fails. */
export type TakeFromStore = (key: string, n: number) => Promise<Grant>;

/** A lease is at most this share of a budget, so what a replica may leave unused at a window's end stays small. */
const LEASE_SHARE = 1000;
const MAX_LEASE = 100;
const MAX_KEYS = 10_000;

interface Lease {
  /** Requests taken from the store and not yet used here. */
  tokens: number;
  /** The store's remaining budget after the last lease. */
  storeRemaining: number;
  resetAt: number;
  /** The window's budget is spent: refuse until it resets. */
  spent: boolean;
  pending?: Promise<void>;
}

/**
 * A request budget counted in a shared store, taken in leases: a replica takes up to 0.1 % of the budget
 * (at most 100 requests) in one call and spends it locally, so a busy key costs one store round trip per
 * lease instead of one per request. Leases shrink to what the store last reported left, so the count is
 * exact near the end of a budget; what a replica holds unused when the window ends (at most one lease) is
 * lost, so a caller may be refused at most that many requests early, never admitted beyond the budget.
 * Budgets under 2,000 requests per window get no leases: every request is counted in the store.
 */
export class BudgetLeases {
  private readonly maxLease: number;
  /** Keys with a lease, at most MAX_KEYS; the least recently used goes first. */
  private readonly leases = new LRUCache<string, Lease>({ max: MAX_KEYS });

  constructor(
    limit: number,
    private readonly take: TakeFromStore,
    private readonly now: () => number = Date.now,
  ) {
    this.maxLease = Math.min(MAX_LEASE, Math.floor(limit / LEASE_SHARE));
  }

  /** Takes one request from the lease of `key` when that needs no store call (a lease with tokens, or a spent window); else undefined. */
  consumeLocally(key: string): Grant | undefined {
    const lease = this.leases.get(key);
    const now = this.now();
    if (!lease || now >= lease.resetAt) return undefined;
    if (lease.tokens > 0) {
      lease.tokens -= 1;
      return { allowed: true, remaining: lease.storeRemaining + lease.tokens, msBeforeNext: lease.resetAt - now };
    }
    return lease.spent ? { allowed: false, remaining: 0, msBeforeNext: lease.resetAt - now } : undefined;
  }

  /** Takes one request from the budget of `key`; throws when the store had to be asked and failed. */
  async consume(key: string): Promise<Grant> {
    if (this.maxLease <= 1) return this.take(key, 1);
    for (;;) {
      const local = this.consumeLocally(key);
      if (local) return local;
      const lease = this.leases.get(key);
      // Concurrent requests of one key wait for one lease rather than each taking their own.
      if (lease?.pending) await lease.pending;
      else await this.renew(key, lease, this.now());
    }
  }

  private renew(key: string, previous: Lease | undefined, now: number): Promise<void> {
    const current = previous && now < previous.resetAt ? previous : undefined;
    const size = Math.max(1, Math.min(this.maxLease, current ? current.storeRemaining : this.maxLease));
    const lease: Lease = current ?? { tokens: 0, storeRemaining: 0, resetAt: 0, spent: false };
    if (!current) this.leases.set(key, lease);
    const pending = this.take(key, size).then((grant) => {
      lease.resetAt = this.now() + grant.msBeforeNext;
      lease.storeRemaining = Math.max(0, grant.remaining);
      lease.spent = !grant.allowed;
      lease.tokens = grant.allowed ? lease.tokens + size : 0;
    });
    lease.pending = pending.finally(() => {
      lease.pending = undefined;
    });
    return lease.pending;
  }
}
