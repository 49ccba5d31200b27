import { hash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { CREDENTIAL_PREFIXES, type Mode } from '@pl/contracts';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

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

/** Passwords are people's secrets, so they get a slow, salted hash (scrypt), stored as `scrypt$salt$hash`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32, SCRYPT);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, SCRYPT);
  return digestsEqual(actual, expected);
}

/** A hash of a password nobody has, so an unknown email costs the same time as a wrong password. */
export const DUMMY_PASSWORD_HASH = 'scrypt$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
