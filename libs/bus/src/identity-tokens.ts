import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { identityClaims, type Identity } from '@pl/contracts';
import { unauthorized } from '@pl/errors';

const ISSUER = 'payment-links-gateway';
const AUDIENCE = 'payment-links-services';
/** Signed and verified tokens remembered at most, each side; the least recently used goes first. */
const MAX_REMEMBERED = 10_000;

interface Signed {
  token: string;
  /** Unix ms after which a new token is signed instead. */
  reuseUntil: number;
}

interface Verified {
  identity: Identity;
  /** The token's `exp`, in unix seconds. */
  exp: number;
}

/**
 * Signs and verifies the short-lived identity token that rides on every NATS request. The key is a
 * KeyObject built once: jsonwebtoken given a string secret re-derives it on every call (~0.3 ms).
 *
 * A busy caller sends the same identity many times a second, so a signed token is reused for the first
 * half of its lifetime (it still has the other half to be checked in), and a token that verified once is
 * answered from memory until its own `exp`: only the very same string, already proven genuine, is.
 */
export class IdentityTokens {
  private readonly key: KeyObject;
  private readonly signed = new LRUCache<string, Signed>({ max: MAX_REMEMBERED });
  private readonly verified = new LRUCache<string, Verified>({ max: MAX_REMEMBERED });

  constructor(
    secret: string,
    private readonly ttlSeconds = 30,
    private readonly now: () => number = Date.now,
  ) {
    if (Buffer.byteLength(secret) < 32) throw new Error('identity token secret must be at least 32 bytes');
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  sign(identity: Identity): string {
    const cacheKey = JSON.stringify(identity);
    const now = this.now();
    const known = this.signed.get(cacheKey);
    if (known && known.reuseUntil > now) return known.token;
    const token = jwt.sign({ ...identity, iat: Math.floor(now / 1000) }, this.key, {
      algorithm: 'HS256',
      expiresIn: this.ttlSeconds,
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    this.signed.set(cacheKey, { token, reuseUntil: now + (this.ttlSeconds * 1000) / 2 });
    return token;
  }

  /** The identity inside a valid token; an unsigned, tampered, foreign or expired token is refused. */
  verify(token: string): Identity {
    const nowSeconds = Math.floor(this.now() / 1000);
    const known = this.verified.get(token);
    if (known) {
      if (nowSeconds < known.exp) return known.identity;
      this.verified.delete(token);
    }
    let payload: unknown;
    try {
      payload = jwt.verify(token, this.key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE, clockTimestamp: nowSeconds });
    } catch {
      throw unauthorized('Invalid or expired identity token');
    }
    const { iat: _iat, exp, iss: _iss, aud: _aud, ...claims } = payload as Record<string, unknown>;
    const parsed = identityClaims.safeParse(claims);
    if (!parsed.success) throw unauthorized('Identity token carries no valid identity');
    if (typeof exp === 'number') this.verified.set(token, { identity: parsed.data, exp });
    return parsed.data;
  }
}
