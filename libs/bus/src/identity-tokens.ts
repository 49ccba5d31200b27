import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { identityClaims, type Identity } from '@pl/contracts';
import { unauthorized } from '@pl/errors';

const ISSUER = 'payment-links-gateway';
const AUDIENCE = 'payment-links-services';

/**
 * Signs and verifies the short-lived identity token that rides on every NATS request. The key is a
 * KeyObject built once: jsonwebtoken given a string secret re-derives it on every call (~0.3 ms).
 */
export class IdentityTokens {
  private readonly key: KeyObject;

  constructor(secret: string, private readonly ttlSeconds = 30) {
    if (Buffer.byteLength(secret) < 32) throw new Error('identity token secret must be at least 32 bytes');
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  sign(identity: Identity): string {
    return jwt.sign(identity, this.key, {
      algorithm: 'HS256',
      expiresIn: this.ttlSeconds,
      issuer: ISSUER,
      audience: AUDIENCE,
    });
  }

  /** The identity inside a valid token; an unsigned, tampered, foreign or expired token is refused. */
  verify(token: string): Identity {
    let payload: unknown;
    try {
      payload = jwt.verify(token, this.key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
    } catch {
      throw unauthorized('Invalid or expired identity token');
    }
    const { iat: _iat, exp: _exp, iss: _iss, aud: _aud, ...claims } = payload as Record<string, unknown>;
    const parsed = identityClaims.safeParse(claims);
    if (!parsed.success) throw unauthorized('Identity token carries no valid identity');
    return parsed.data;
  }
}
