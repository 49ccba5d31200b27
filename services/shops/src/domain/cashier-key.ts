import { createHash, randomBytes } from 'node:crypto';

export const CASHIER_KEY_PREFIX = 'svc_live_';

/** A new cashier key: the prefix and 256 random bits, base64url. Shown once, stored only as its digest. */
export const newCashierKey = (): string => `${CASHIER_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;

/** The stored form of a cashier key. A plain SHA-256 suffices: the key is random, not a password. */
export const cashierKeyDigest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();
