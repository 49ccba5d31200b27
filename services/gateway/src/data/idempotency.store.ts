import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from './redis';
import { redisCall } from './redis';

export type IdempotencyClaim =
  | { outcome: 'claimed'; lease: IdempotencyLease }
  | { outcome: 'replay'; status: number; body: unknown }
  | { outcome: 'conflict'; reason: 'different_body' | 'in_progress' };

/** Proof that this request holds the key; only the holder can complete or release it. */
export interface IdempotencyLease {
  key: string;
  marker: string;
}

type Stored = { state: 'in_progress'; fingerprint: string; owner: string } | { state: 'done'; fingerprint: string; status: number; body: unknown };

// Compare-and-set in one step: a request whose in-progress marker expired (a very slow request)
// must not overwrite or drop the result of the request that claimed the key after it.
const SET_IF_HELD = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) return 1 end return 0`;
const DEL_IF_HELD = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

const WHAT = 'Idempotency store';

/** The SHA-256 (hex) of an Idempotency-Key: how the cache and the links service know a key without keeping it. */
export const keyDigest = (idempotencyKey: string): string => createHash('sha256').update(idempotencyKey, 'utf8').digest('hex');

/**
 * Idempotency-Key records in Redis: the fast path. The first request claims the key with SET NX and an
 * in-progress marker that expires after `lockSeconds` (so a crashed gateway cannot block a key for a day); the
 * finished response is then kept for `ttlSeconds`, and replays are answered from here without a bus hop. It
 * is not the guard against a second link: the links service keeps every key with the link it made, so a key
 * this cache freed or forgot still finds its first answer there.
 */
export class IdempotencyStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    private readonly lockSeconds: number,
  ) {}

  /** `scope` names the merchant (and shop, for cashier keys) and the route. */
  private key(scope: string, idempotencyKey: string): string {
    return `${this.prefix}idem:${scope}:${keyDigest(idempotencyKey)}`;
  }

  async claim(scope: string, idempotencyKey: string, fingerprint: string): Promise<IdempotencyClaim> {
    const key = this.key(scope, idempotencyKey);
    const marker = JSON.stringify({ state: 'in_progress', fingerprint, owner: randomUUID() } satisfies Stored);
    // Two rounds: the holder may release or its marker may expire between our SET and GET.
    for (let round = 0; round < 2; round++) {
      const set = await redisCall(WHAT, () => this.redis.set(key, marker, { NX: true, EX: this.lockSeconds }));
      if (set === 'OK') return { outcome: 'claimed', lease: { key, marker } };
      const raw = await redisCall(WHAT, () => this.redis.get(key));
      if (raw === null) continue;
      const stored = JSON.parse(raw) as Stored;
      if (stored.fingerprint !== fingerprint) return { outcome: 'conflict', reason: 'different_body' };
      if (stored.state === 'in_progress') return { outcome: 'conflict', reason: 'in_progress' };
      return { outcome: 'replay', status: stored.status, body: stored.body };
    }
    return { outcome: 'conflict', reason: 'in_progress' };
  }

  /** Keeps the response for replays. */
  async complete(lease: IdempotencyLease, status: number, body: unknown): Promise<void> {
    const { fingerprint } = JSON.parse(lease.marker) as { fingerprint: string };
    const done = JSON.stringify({ state: 'done', fingerprint, status, body } satisfies Stored);
    await redisCall(WHAT, () => this.redis.eval(SET_IF_HELD, { keys: [lease.key], arguments: [lease.marker, done, String(this.ttlSeconds)] }));
  }

  /**
   * Frees the key so a retry can run: the first attempt failed or its caller left. The retry reaches the links
   * service, which answers with the first attempt's link if that one was made after all.
   */
  async release(lease: IdempotencyLease): Promise<void> {
    await redisCall(WHAT, () => this.redis.eval(DEL_IF_HELD, { keys: [lease.key], arguments: [lease.marker] }));
  }
}
