import { createHash, randomBytes } from 'node:crypto';
import { CREDENTIAL_PREFIXES, modeOfCredential, type Mode } from '@pl/contracts';

/** The live prefix, kept for callers that only ever dealt in live keys; new code takes the mode's prefix. */
export const CASHIER_KEY_PREFIX = CREDENTIAL_PREFIXES.cashierKey.live;

/**
 * A new cashier key of `mode`: the mode's prefix and 256 random bits, base64url. Shown once, stored only as its
 * digest; the prefix is part of what is digested, so a key can only ever match a key of its own mode.
 */
export const newCashierKey = (mode: Mode): string => `${CREDENTIAL_PREFIXES.cashierKey[mode]}${randomBytes(32).toString('base64url')}`;

/** The stored form of a cashier key. A plain SHA-256 suffices: the key is random, not a password. */
export const cashierKeyDigest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/** The mode a cashier key's prefix names, or null for anything that is not one of ours. */
export const cashierKeyMode = (key: string): Mode | null => modeOfCredential('cashierKey', key);
