import { randomUUID } from 'node:crypto';
import type { Redis } from './redis';
import { redisCall } from './redis';
import { requestActor } from '../domain/request-context';
import { newSessionToken, sessionTokenDigest } from '../domain/session-token';

export interface Session {
  /** Who signed in. */
  userId: string;
  /** The account the session acts for (one of the user's; `POST /api/v1/auth/switch` moves it). */
  merchantId: string;
  expiresAt: Date;
  /**
   * The user's session epoch when the session was opened: a password change or reset moves the user's epoch on,
   * so every session opened before it stops at once, on every replica (the user row is read per request).
   */
  epoch: number;
  /** The id the session is listed and revoked by: random, unrelated to the token. Null only for a session stored before ids existed, until its first use. */
  id: string | null;
  /** When the idle clock last moved (at most once a minute), Unix milliseconds; null for a session stored before it existed. */
  lastSeen: number | null;
  /** When a second factor was last verified in this session (sign-in's second step, step-up, a confirmed enrollment). */
  secondFactorAt: Date | null;
}

/** A session as its user's list shows it (`GET /api/v1/me/sessions`). */
export interface ListedSession {
  id: string;
  merchantId: string;
  epoch: number;
  createdAt: Date;
  lastSeenAt: Date;
  ip: string | null;
  userAgent: string | null;
}

interface StoredSession {
  merchant_id: string;
  /** Absent in sessions stored before users existed: each merchant's user took the merchant's id. */
  user_id?: string;
  /** Unix milliseconds; checked on read too, so a clock-skewed TTL never extends a session. */
  expires: number;
  /** Absent in sessions stored before epochs existed: they count as epoch 0, the column's default. */
  epoch?: number;
  /** The listed id, when the session was opened, its idle clock, and the client that opened it (absent in older sessions). */
  id?: string;
  created?: number;
  last_seen?: number;
  ip?: string | null;
  ua?: string | null;
  /** Unix milliseconds of the last second factor verified in the session; absent: none yet. */
  second_factor_at?: number;
}

/** The idle clock is written at most this often per session: a request that finds it fresher writes nothing. */
export const SEEN_EVERY_MS = 60_000;

// Opens a session and indexes it under its user in one step; the index lives as long as its longest-lived session.
const CREATE = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
return 1`;

// Moves the idle clock: the stored record is read and written in one step, so a concurrent switch or epoch move is
// never undone. A session stored before ids existed gets its id and joins its user's index here.
const SEEN = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local s = cjson.decode(raw)
local now = tonumber(ARGV[1])
local left = s.expires - now
if left <= 0 then return 0 end
local ttl = math.min(tonumber(ARGV[2]), left)
s.last_seen = now
if type(s.id) ~= 'string' then
  s.id = ARGV[3]
  s.created = tonumber(ARGV[4])
end
redis.call('SET', KEYS[1], cjson.encode(s), 'PX', ttl)
redis.call('HSET', KEYS[2], s.id, ARGV[5])
if redis.call('PTTL', KEYS[2]) < left then redis.call('PEXPIRE', KEYS[2], left) end
return 1`;

/**
 * Dashboard sessions in Redis, keyed by a digest of the token; the token itself is never stored. A session ends at
 * its absolute lifetime (`ttlSeconds`) or after `idleSeconds` without use, whichever comes first; the key's TTL is
 * the nearer of the two, so Redis drops it by itself. Each user's sessions are indexed by their listed id
 * (`user-sessions:<user>`, id → digest) for the user's list and revocations (docs/adr/0030).
 */
export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    private readonly idleSeconds: number = ttlSeconds,
  ) {}

  private keyOfDigest(digest: string): string {
    return `${this.prefix}session:${digest}`;
  }

  private key(token: string): string {
    return this.keyOfDigest(sessionTokenDigest(token));
  }

  private indexKey(userId: string): string {
    return `${this.prefix}user-sessions:${userId}`;
  }

  /**
   * Opens a session; the client it is opened from is the current request's (address, user agent). `secondFactorAt`:
   * the session opens after a second factor was verified (sign-in's second step).
   */
  async create(
    userId: string,
    merchantId: string,
    epoch = 0,
    now = new Date(),
    secondFactorAt: Date | null = null,
  ): Promise<{ token: string; session: Session }> {
    const token = newSessionToken();
    const at = now.getTime();
    const ttlMs = this.ttlSeconds * 1000;
    const expires = at + ttlMs;
    const id = randomUUID();
    const client = requestActor();
    const stored: StoredSession = {
      merchant_id: merchantId,
      user_id: userId,
      expires,
      epoch,
      id,
      created: at,
      last_seen: at,
      ip: client?.ip ?? null,
      ua: client?.userAgent ?? null,
      ...(secondFactorAt && { second_factor_at: secondFactorAt.getTime() }),
    };
    const firstTtl = Math.min(ttlMs, this.idleSeconds * 1000);
    await redisCall('Session store', () =>
      this.redis.eval(CREATE, {
        keys: [this.key(token), this.indexKey(userId)],
        arguments: [JSON.stringify(stored), String(firstTtl), id, sessionTokenDigest(token), String(ttlMs)],
      }),
    );
    return { token, session: { userId, merchantId, expiresAt: new Date(expires), epoch, id, lastSeen: at, secondFactorAt } };
  }

  /**
   * Moves a session's idle clock on after a use, writing only when it last moved a minute or more ago: an active
   * session costs one write a minute, not one per request. Its key then lives `idleSeconds` more (never past its
   * absolute end).
   */
  async markSeen(token: string, session: Session, now = Date.now()): Promise<void> {
    if (session.id !== null && session.lastSeen !== null && now - session.lastSeen < SEEN_EVERY_MS) return;
    const digest = sessionTokenDigest(token);
    // A session stored before ids existed is adopted: listed from now on, opened (as far as we know) a lifetime before its end.
    const createdGuess = session.expiresAt.getTime() - this.ttlSeconds * 1000;
    await redisCall('Session store', () =>
      this.redis.eval(SEEN, {
        keys: [this.keyOfDigest(digest), this.indexKey(session.userId)],
        arguments: [String(now), String(this.idleSeconds * 1000), randomUUID(), String(createdGuess), digest],
      }),
    );
  }

  /** Records a second factor verified now in the session (step-up lasts from it); only while the session exists. */
  async recordSecondFactor(token: string, at = new Date()): Promise<void> {
    await this.rewrite(token, (s) => ({ ...s, second_factor_at: at.getTime() }));
  }

  /**
   * Carries one session over to a new epoch (the caller's own after a password change), keeping its expiry.
   * Only while the session still exists: `XX` never brings an ended one back.
   */
  async moveToEpoch(token: string, epoch: number): Promise<void> {
    await this.rewrite(token, (s) => ({ ...s, epoch }));
  }

  /** Moves one session to another account of its user, keeping its expiry; only while the session still exists. */
  async switchAccount(token: string, merchantId: string): Promise<void> {
    await this.rewrite(token, (s) => ({ ...s, merchant_id: merchantId }));
  }

  /** Changes the stored record, keeping every field the change does not name (its id, clocks, client) and its TTL. */
  private async rewrite(token: string, change: (s: StoredSession) => StoredSession): Promise<void> {
    const stored = await this.read(this.key(token), Date.now());
    if (!stored) return;
    await redisCall('Session store', () => this.redis.set(this.key(token), JSON.stringify(change(stored)), { XX: true, KEEPTTL: true }));
  }

  private async read(key: string, now: number): Promise<StoredSession | null> {
    return this.parse(await redisCall('Session store', () => this.redis.get(key)), now);
  }

  /** A stored record still in force: neither past its absolute end nor idle for longer than allowed. */
  private parse(raw: string | null, now: number): StoredSession | null {
    if (raw === null) return null;
    let stored: StoredSession;
    try {
      stored = JSON.parse(raw) as StoredSession;
    } catch {
      return null;
    }
    if (typeof stored.merchant_id !== 'string' || typeof stored.expires !== 'number' || stored.expires <= now) return null;
    // Redis drops an idle session by its TTL; this also holds where its clock and ours disagree.
    if (typeof stored.last_seen === 'number' && now - stored.last_seen >= this.idleSeconds * 1000) return null;
    return stored;
  }

  async find(token: string, now = new Date()): Promise<Session | null> {
    const stored = await this.read(this.key(token), now.getTime());
    if (!stored) return null;
    return {
      userId: typeof stored.user_id === 'string' ? stored.user_id : stored.merchant_id,
      merchantId: stored.merchant_id,
      expiresAt: new Date(stored.expires),
      epoch: typeof stored.epoch === 'number' ? stored.epoch : 0,
      id: typeof stored.id === 'string' ? stored.id : null,
      lastSeen: typeof stored.last_seen === 'number' ? stored.last_seen : null,
      secondFactorAt: typeof stored.second_factor_at === 'number' ? new Date(stored.second_factor_at) : null,
    };
  }

  /** Ends a session by its token (sign-out). */
  async delete(token: string): Promise<void> {
    const session = await this.find(token);
    await redisCall('Session store', async () => {
      const multi = this.redis.multi().del(this.key(token));
      if (session?.id) multi.hDel(this.indexKey(session.userId), session.id);
      await multi.exec();
    });
  }

  /**
   * The user's sessions still in force, newest first. Index entries whose session has ended (expired, idle, signed
   * out elsewhere) are dropped on the way.
   */
  async listOf(userId: string, now = Date.now()): Promise<ListedSession[]> {
    const index = await redisCall('Session store', () => this.redis.hGetAll(this.indexKey(userId)));
    const entries = Object.entries(index);
    if (entries.length === 0) return [];
    const raws = await redisCall('Session store', () => this.redis.mGet(entries.map(([, digest]) => this.keyOfDigest(digest))));
    const listed: ListedSession[] = [];
    const ended: string[] = [];
    entries.forEach(([id], i) => {
      const s = this.parse(raws[i] ?? null, now);
      if (s?.id !== id || (s.user_id ?? s.merchant_id) !== userId) {
        ended.push(id);
        return;
      }
      listed.push({
        id,
        merchantId: s.merchant_id,
        epoch: typeof s.epoch === 'number' ? s.epoch : 0,
        createdAt: new Date(s.created ?? s.expires - this.ttlSeconds * 1000),
        lastSeenAt: new Date(s.last_seen ?? s.created ?? now),
        ip: s.ip ?? null,
        userAgent: s.ua ?? null,
      });
    });
    if (ended.length > 0) await redisCall('Session store', () => this.redis.hDel(this.indexKey(userId), ended));
    return listed.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || a.id.localeCompare(b.id));
  }

  /** Ends sessions of the user by their listed ids; answers how many were still there. */
  async end(userId: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const index = this.indexKey(userId);
    const digests = await redisCall('Session store', () => this.redis.hmGet(index, [...ids]));
    const keys = digests.filter((d): d is string => typeof d === 'string').map((d) => this.keyOfDigest(d));
    return redisCall('Session store', async () => {
      const multi = this.redis.multi().hDel(index, [...ids]);
      if (keys.length > 0) multi.del(keys);
      const replies = await multi.exec();
      return keys.length > 0 ? Number(replies[1] ?? 0) : 0;
    });
  }
}
