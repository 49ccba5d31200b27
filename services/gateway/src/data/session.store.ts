import type { Redis } from './redis';
import { redisCall } from './redis';
import { newSessionToken, sessionTokenDigest } from '../domain/session-token';

export interface Session {
  merchantId: string;
  expiresAt: Date;
}

interface StoredSession {
  merchant_id: string;
  /** Unix milliseconds; checked on read too, so a clock-skewed TTL never extends a session. */
  expires: number;
}

/** Dashboard sessions in Redis, keyed by a digest of the token; the token itself is never stored. */
export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {}

  private key(token: string): string {
    return `${this.prefix}session:${sessionTokenDigest(token)}`;
  }

  async create(merchantId: string, now = new Date()): Promise<{ token: string; session: Session }> {
    const token = newSessionToken();
    const expires = now.getTime() + this.ttlSeconds * 1000;
    const stored: StoredSession = { merchant_id: merchantId, expires };
    await redisCall('Session store', () => this.redis.set(this.key(token), JSON.stringify(stored), { EX: this.ttlSeconds }));
    return { token, session: { merchantId, expiresAt: new Date(expires) } };
  }

  async find(token: string, now = new Date()): Promise<Session | null> {
    const raw = await redisCall('Session store', () => this.redis.get(this.key(token)));
    if (raw === null) return null;
    let stored: StoredSession;
    try {
      stored = JSON.parse(raw) as StoredSession;
    } catch {
      return null;
    }
    if (typeof stored.merchant_id !== 'string' || typeof stored.expires !== 'number' || stored.expires <= now.getTime()) {
      return null;
    }
    return { merchantId: stored.merchant_id, expiresAt: new Date(stored.expires) };
  }

  async delete(token: string): Promise<void> {
    await redisCall('Session store', () => this.redis.del(this.key(token)));
  }
}
