import { LRUCache } from 'lru-cache';
import { digestsEqual, sha256 } from '../domain/credentials';
import type { Merchant } from './account.repository';

/** Who owns an active API key pair: the database's answer, or a recent copy of it. */
export interface ApiKeyLookup {
  findByApiKey(publicKey: string, secret: string): Promise<Merchant | null>;
  /** The owner from memory when the pair was verified recently, without waiting for anything; else undefined. */
  remembered?(publicKey: string, secret: string): Merchant | undefined;
}

export interface ApiKeyCacheOptions {
  /** How long a verified pair is served from memory; also how long a revocation may take to bite. */
  ttlMs: number;
  /** Pairs kept at most; the least recently used goes first. */
  maxEntries: number;
  now?: () => number;
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
 */
export class ApiKeyCache implements ApiKeyLookup {
  private readonly entries: LRUCache<string, Entry>;
  /** Look-ups under way by key and secret digest: when a busy pair's entry expires, one query serves them all. */
  private readonly inFlight = new Map<string, Promise<Merchant | null>>();
  private readonly now: () => number;

  constructor(
    private readonly source: ApiKeyLookup,
    private readonly options: ApiKeyCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.entries = new LRUCache({ max: options.maxEntries });
  }

  remembered(publicKey: string, secret: string): Merchant | undefined {
    const entry = this.entries.get(publicKey);
    if (!entry || entry.expiresAt <= this.now()) return undefined;
    return digestsEqual(sha256(secret), entry.secretDigest) ? entry.merchant : undefined;
  }

  async findByApiKey(publicKey: string, secret: string): Promise<Merchant | null> {
    const digest = sha256(secret);
    // Taken before the query, so an entry never outlives the TTL counted from the database's answer.
    const asked = this.now();
    const entry = this.entries.get(publicKey);
    if (entry && entry.expiresAt > asked && digestsEqual(digest, entry.secretDigest)) return entry.merchant;
    const flightKey = `${publicKey}:${digest.toString('base64')}`;
    const pending = this.inFlight.get(flightKey);
    if (pending) return pending;
    const lookup = this.source.findByApiKey(publicKey, secret).then((merchant) => {
      if (merchant) this.entries.set(publicKey, { secretDigest: digest, merchant, expiresAt: asked + this.options.ttlMs });
      return merchant;
    });
    this.inFlight.set(flightKey, lookup);
    try {
      return await lookup;
    } finally {
      this.inFlight.delete(flightKey);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
