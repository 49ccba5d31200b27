import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { CREDENTIAL_PREFIXES, type Mode } from '@pl/contracts';

const token = (bytes: number): string => randomBytes(bytes).toString('base64url');

/** A key pair of one mode: both halves carry its prefix, which is how a request's mode is read from them. */
export const newApiKeyPair = (mode: Mode): { apiKey: string; apiSecret: string } => ({
  apiKey: `${CREDENTIAL_PREFIXES.apiKey[mode]}${token(18)}`,
  apiSecret: `${CREDENTIAL_PREFIXES.apiSecret[mode]}${token(32)}`,
});

// The one-shot digest: every authenticated request hashes its secret, and a Hash object per call cost 2 % of the gateway.
export const sha256 = (value: string): Buffer => hash('sha256', value, 'buffer');

/** Constant-time equality of two digests of equal length. */
export const digestsEqual = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);
