import type { Redis } from './redis';
import { redisCall } from './redis';
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
  /** When a second factor was last verified in this session (sign-in's second step, step-up, a confirmed enrollment). */
  secondFactorAt: Date | null;
}

interface StoredSession {
  merchant_id: string;
  /** Absent in sessions stored before users existed: each merchant's user took the merchant's id. */
  user_id?: string;
  /** Unix milliseconds; checked on read too, so a clock-skewed TTL never extends a session. */
  expires: number;
  /** Absent in sessions stored before epochs existed: they count as epoch 0, the column's default. */
  epoch?: number;
  /** Unix milliseconds of the last second factor verified in the session; absent: none yet. */
  second_factor_at?: number;
}

const toStored = (s: Session): StoredSession => ({
  merchant_id: s.merchantId,
  user_id: s.userId,
  expires: s.expiresAt.getTime(),
  epoch: s.epoch,
  ...(s.secondFactorAt && { second_factor_at: s.secondFactorAt.getTime() }),
});

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

  /** `secondFactorAt`: the session opens after a second factor was verified (sign-in's second step). */
  async create(
    userId: string,
    merchantId: string,
    epoch = 0,
    now = new Date(),
    secondFactorAt: Date | null = null,
  ): Promise<{ token: string; session: Session }> {
    const token = newSessionToken();
    const session: Session = { userId, merchantId, expiresAt: new Date(now.getTime() + this.ttlSeconds * 1000), epoch, secondFactorAt };
    await redisCall('Session store', () => this.redis.set(this.key(token), JSON.stringify(toStored(session)), { EX: this.ttlSeconds }));
    return { token, session };
  }

  /** Records a second factor verified now in the session (step-up lasts from it); only while the session exists. */
  async recordSecondFactor(token: string, at = new Date()): Promise<void> {
    await this.rewrite(token, (s) => ({ ...s, secondFactorAt: at }));
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
    await this.rewrite(token, (s) => ({ ...s, merchantId }));
  }

  private async rewrite(token: string, change: (s: Session) => Session): Promise<void> {
    const session = await this.find(token);
    if (!session) return;
    const stored = toStored(change(session));
    await redisCall('Session store', () => this.redis.set(this.key(token), JSON.stringify(stored), { XX: true, KEEPTTL: true }));
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
    const epoch = typeof stored.epoch === 'number' ? stored.epoch : 0;
    const userId = typeof stored.user_id === 'string' ? stored.user_id : stored.merchant_id;
    const secondFactorAt = typeof stored.second_factor_at === 'number' ? new Date(stored.second_factor_at) : null;
    return { userId, merchantId: stored.merchant_id, expiresAt: new Date(stored.expires), epoch, secondFactorAt };
  }

  async delete(token: string): Promise<void> {
    await redisCall('Session store', () => this.redis.del(this.key(token)));
  }
}
