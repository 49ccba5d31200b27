import { LRUCache } from 'lru-cache';
import { digestsEqual, sha256 } from '../domain/credentials';
import type { ApiKeyOwner, Merchant } from './account.repository';

/** Who owns an active API key pair: the database's answer, or a recent copy of it. */
export interface ApiKeyLookup {
  findByApiKey(publicKey: string, secret: string): Promise<Merchant | null>;
  /** The owner from memory when the pair was verified recently, without waiting for anything; else undefined. */
  remembered?(publicKey: string, secret: string): Merchant | undefined;
}

/** Where the cache gets its answers: the database, which also says when the key stops (if it ever does). */
export interface ApiKeySource {
  findByApiKey(publicKey: string, secret: string): Promise<Merchant | (Merchant & Pick<ApiKeyOwner, 'keyExpiresAt'>) | null>;
}

export interface ApiKeyCacheOptions {
  /** How long a verified pair is served from memory; also how long a revocation may take to bite. */
  ttlMs: number;
  /** Pairs kept at most; the least recently used goes first. */
  maxEntries: number;
  now?: () => number;
  /** Told of every pair accepted, from memory or not (for `last_used_at`); must not throw or wait. */
  onUse?: (publicKey: string) => void;
}

interface Entry {
  secretDigest: Buffer;
  merchant: Merchant;
  expiresAt: number;
}

/**
 * Recently verified API key pairs, so a merchant's every request does not cost a database round trip.
 * An entry keeps the SHA-256 of the secret the database accepted (the same digest the database stores),
 * and a request is answered from it only when its own secret hashes to that digest, compared in constant
 * time. Any other secret goes to the database, which refuses it: a wrong secret is never accepted from
 * memory. Failures are not remembered, so a key pair that starts working is usable at once.
 *
 * A dead credential is never kept alive: an entry lives no longer than its key's `expires_at`, and
 * {@link evict} and {@link clear} (driven by the credentials broadcast and by bus reconnects) drop entries
 * at once. A look-up that was under way when an eviction came is not remembered, since its answer may
 * predate the change.
 */
export class ApiKeyCache implements ApiKeyLookup {
  private readonly entries: LRUCache<string, Entry>;
  /** Look-ups under way by key and secret digest: when a busy pair's entry expires, one query serves them all. */
  private readonly inFlight = new Map<string, Promise<Merchant | null>>();
  private readonly now: () => number;
  /** Moves on at every eviction: a look-up that started before one does not fill the cache. */
  private generation = 0;
  /** False while the credentials broadcast may be missing messages (bus disconnected): nothing is kept then. */
  private live = true;

  constructor(
    private readonly source: ApiKeySource,
    private readonly options: ApiKeyCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.entries = new LRUCache({ max: options.maxEntries });
  }

  remembered(publicKey: string, secret: string): Merchant | undefined {
    const entry = this.entries.get(publicKey);
    if (!entry || entry.expiresAt <= this.now()) return undefined;
    if (!digestsEqual(sha256(secret), entry.secretDigest)) return undefined;
    this.options.onUse?.(publicKey);
    return entry.merchant;
  }

  /** Forgets one key at once (it was revoked or reissued, here or on another replica). */
  evict(publicKey: string): void {
    this.generation += 1;
    this.entries.delete(publicKey);
    this.inFlight.clear();
  }

  /** Forgets every key (a change may have been missed, e.g. while the bus was disconnected). */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.inFlight.clear();
  }

  /**
   * Whether changes reach this cache: while they cannot (the bus is down), it forgets everything and keeps
   * nothing, so every request asks the database; when they can again, it starts from empty.
   */
  setLive(live: boolean): void {
    this.live = live;
    this.clear();
  }

  async findByApiKey(publicKey: string, secret: string): Promise<Merchant | null> {
    const digest = sha256(secret);
    // Taken before the query, so an entry never outlives the TTL counted from the database's answer.
    const asked = this.now();
    const entry = this.entries.get(publicKey);
    if (entry && entry.expiresAt > asked && digestsEqual(digest, entry.secretDigest)) {
      this.options.onUse?.(publicKey);
      return entry.merchant;
    }
    const flightKey = `${publicKey}:${digest.toString('base64')}`;
    const pending = this.inFlight.get(flightKey);
    const lookup = pending ?? this.lookUp(publicKey, secret, digest, asked);
    if (!pending) this.inFlight.set(flightKey, lookup);
    try {
      const merchant = await lookup;
      if (merchant) this.options.onUse?.(publicKey);
      return merchant;
    } finally {
      if (this.inFlight.get(flightKey) === lookup) this.inFlight.delete(flightKey);
    }
  }

  private async lookUp(publicKey: string, secret: string, digest: Buffer, asked: number): Promise<Merchant | null> {
    const generation = this.generation;
    const found = await this.source.findByApiKey(publicKey, secret);
    if (!found) return null;
    const { keyExpiresAt, ...merchant } = { keyExpiresAt: null, ...found };
    const expiresAt = Math.min(asked + this.options.ttlMs, keyExpiresAt?.getTime() ?? Number.POSITIVE_INFINITY);
    if (this.live && generation === this.generation) this.entries.set(publicKey, { secretDigest: digest, merchant, expiresAt });
    return merchant;
  }

  get size(): number {
    return this.entries.size;
  }
}
