import type { Redis } from './redis';
import { redisCall } from './redis';
import { looksLikeSessionToken, newSessionToken, sessionTokenDigest } from '../domain/session-token';

/** A challenge lives this long (the spec: 5 minutes)... */
const CHALLENGE_SECONDS = 300;
/** ...and takes this many tries; the next one finds it gone. */
const CHALLENGE_TRIES = 5;

/** Who passed the password step: what the second step signs in once a second factor is verified. */
export interface PendingSignIn {
  userId: string;
  merchantId: string;
  epoch: number;
}

/**
 * Counts one try of a challenge in one atomic step: the challenge's data while tries are left, else nothing (and
 * the challenge is gone). A missing key is never created by the count.
 */
const TRY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local n = redis.call('HINCRBY', KEYS[1], 'tries', 1)
if n > tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  return false
end
return redis.call('HGET', KEYS[1], 'data')`;

/**
 * Sign-in challenges between the password and the second factor, in Redis under a SHA-256 of the challenge (the
 * challenge itself is never stored): 5 minutes, 5 tries, used once.
 */
export class LoginChallengeStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(challenge: string): string {
    return `${this.prefix}2fa:challenge:${sessionTokenDigest(challenge)}`;
  }

  async create(pending: PendingSignIn): Promise<string> {
    const challenge = newSessionToken();
    const key = this.key(challenge);
    await redisCall('Sign-in', () =>
      this.redis
        .multi()
        .hSet(key, { data: JSON.stringify(pending), tries: '0' })
        .expire(key, CHALLENGE_SECONDS)
        .exec(),
    );
    return challenge;
  }

  /** Takes one try: the pending sign-in, or null when the challenge is unknown, expired, used or out of tries. */
  async try(challenge: string): Promise<PendingSignIn | null> {
    if (!looksLikeSessionToken(challenge)) return null;
    const data = await redisCall('Sign-in', () => this.redis.eval(TRY, { keys: [this.key(challenge)], arguments: [String(CHALLENGE_TRIES)] }));
    if (typeof data !== 'string') return null;
    return JSON.parse(data) as PendingSignIn;
  }

  /**
   * The pending sign-in of a live challenge without taking a try: fetching passkey options is not an attempt at the
   * second factor, the assertion that answers them is. Null when the challenge is unknown, expired, used or spent.
   */
  async peek(challenge: string): Promise<PendingSignIn | null> {
    if (!looksLikeSessionToken(challenge)) return null;
    const [data, tries] = await redisCall('Sign-in', () => this.redis.hmGet(this.key(challenge), ['data', 'tries']));
    if (typeof data !== 'string' || Number(tries) >= CHALLENGE_TRIES) return null;
    return JSON.parse(data) as PendingSignIn;
  }

  /** Ends a challenge once its second factor passed; true for the one caller that ended it (used once). */
  async use(challenge: string): Promise<boolean> {
    return (await redisCall('Sign-in', () => this.redis.del(this.key(challenge)))) === 1;
  }
}
