import { sha256 } from '../domain/credentials';
import type { ChallengePurpose } from '../domain/passkeys';
import { redisCall, type Redis } from './redis';

/** How long a user has to answer a WebAuthn challenge (the options' `timeout` says the same to the browser). */
const CHALLENGE_TTL_SECONDS = 300;

/**
 * WebAuthn challenges waiting for their answer, in Redis: each is bound to one user and one purpose, lives 5 minutes
 * and is taken once (a `DEL` that found it), so a response is never accepted twice. A user may have several open
 * (two tabs); each is its own key. Keys hold the challenge's SHA-256, not the challenge.
 */
export class WebAuthnChallenges {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(purpose: ChallengePurpose, userId: string, challenge: string): string {
    return `${this.prefix}webauthn:${purpose}:${userId}:${sha256(challenge).toString('base64url')}`;
  }

  async issue(purpose: ChallengePurpose, userId: string, challenge: string): Promise<void> {
    await redisCall('Passkey challenges', () => this.redis.set(this.key(purpose, userId, challenge), '1', { EX: CHALLENGE_TTL_SECONDS }));
  }

  /** True once for a challenge issued to this user for this purpose in the last 5 minutes; false ever after. */
  async take(purpose: ChallengePurpose, userId: string, challenge: string): Promise<boolean> {
    const removed = await redisCall('Passkey challenges', () => this.redis.del(this.key(purpose, userId, challenge)));
    return removed === 1;
  }
}
