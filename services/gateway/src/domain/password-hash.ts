import { randomBytes, scrypt as scryptCb } from 'node:crypto';
import { promisify } from 'node:util';
import { digestsEqual } from './credentials';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

/** scrypt's cost parameters: N (CPU and memory, a power of two), r (block size), p (parallel lanes, run one after another). */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * OWASP's password storage cheat sheet: scrypt's minimum, as rows of equal strength. Parameters meet it when some
 * row is matched or exceeded in every one of N, r and p.
 */
const OWASP_SCRYPT_MINIMUMS: readonly ScryptParams[] = [
  { N: 2 ** 17, r: 8, p: 1 },
  { N: 2 ** 16, r: 8, p: 2 },
  { N: 2 ** 15, r: 8, p: 3 },
  { N: 2 ** 14, r: 8, p: 5 },
  { N: 2 ** 13, r: 8, p: 10 },
];

/**
 * The default for new hashes: OWASP's N=2^14, r=8, p=5 row rather than its N=2^17, p=1 one. Both are its minimum;
 * this one needs 16 MiB a hash instead of 128 MiB (the gateway's four libuv threads hashing at once would hold
 * 512 MiB of a 576 MiB pod limit) and measured about 3.4 times the old cost on this 2-core box against 20 times
 * for N=2^17 (docs/adr/0039-password-hash-parameters.md).
 */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 14, r: 8, p: 5 };

/** What a hash without parameters (`scrypt$salt$hash`, written before they were stored) was made with. */
export const LEGACY_SCRYPT: ScryptParams = { N: 2 ** 14, r: 8, p: 1 };

/** Bounds any configured or stored parameters must keep: a corrupt hash may not ask for gigabytes or minutes. */
const SCRYPT_LIMITS = { minN: 2 ** 10, maxN: 2 ** 20, minR: 1, maxR: 32, minP: 1, maxP: 16, maxMemory: 256 * 1024 * 1024 } as const;

/** True when `a` is at least `b` in every one of N, r and p. */
export const atLeast = (a: ScryptParams, b: ScryptParams): boolean => a.N >= b.N && a.r >= b.r && a.p >= b.p;

export const meetsOwaspMinimum = (params: ScryptParams): boolean => OWASP_SCRYPT_MINIMUMS.some((row) => atLeast(params, row));

/**
 * OpenSSL's own count of what a hash allocates (B: 128·r·p, V with X and T: 128·r·(N+2)), so `maxmem` lets exactly
 * these parameters through: Node's default (32 MiB) would refuse N=2^17, and a larger blanket cap would let a bad
 * stored hash allocate more than it should.
 */
export const scryptMemory = ({ N, r, p }: ScryptParams): number => 128 * r * (N + p + 2);

/** Why parameters are out of bounds, or null when they are within them. */
export function scryptParamsProblem(params: ScryptParams): string | null {
  const { N, r, p } = params;
  const L = SCRYPT_LIMITS;
  if (!Number.isInteger(N) || N < L.minN || N > L.maxN || (N & (N - 1)) !== 0) return `N must be a power of two from ${L.minN} to ${L.maxN}`;
  if (!Number.isInteger(r) || r < L.minR || r > L.maxR) return `r must be an integer from ${L.minR} to ${L.maxR}`;
  if (!Number.isInteger(p) || p < L.minP || p > L.maxP) return `p must be an integer from ${L.minP} to ${L.maxP}`;
  if (scryptMemory(params) > L.maxMemory) return `N and r ask for more than ${L.maxMemory / 1024 / 1024} MiB a hash`;
  return null;
}

/** Reads `N=16384,r=8,p=5` (the configuration's spelling); null when it is not that shape. */
export function parseScryptSetting(text: string): ScryptParams | null {
  const m = /^N=(\d{1,8}),r=(\d{1,3}),p=(\d{1,3})$/.exec(text.replace(/\s+/g, ''));
  return m ? { N: Number(m[1]), r: Number(m[2]), p: Number(m[3]) } : null;
}

const KEY_BYTES = 32;
const SALT_BYTES = 16;

interface StoredHash {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

/** `scrypt$N$r$p$salt$hash`, or the older `scrypt$salt$hash` read as {@link LEGACY_SCRYPT}; null for anything else. */
function parseStored(stored: string): StoredHash | null {
  const parts = stored.split('$');
  if (parts[0] !== 'scrypt') return null;
  let params: ScryptParams;
  let salt: string | undefined;
  let hash: string | undefined;
  if (parts.length === 3) {
    params = LEGACY_SCRYPT;
    [, salt, hash] = parts;
  } else if (parts.length === 6) {
    const [, n, r, p] = parts.map((x) => (/^\d{1,8}$/.test(x) ? Number(x) : NaN));
    params = { N: n ?? NaN, r: r ?? NaN, p: p ?? NaN };
    [, , , , salt, hash] = parts;
  } else {
    return null;
  }
  if (!salt || !hash || scryptParamsProblem(params) !== null) return null;
  const hashBytes = Buffer.from(hash, 'base64');
  return hashBytes.length === 0 ? null : { params, salt: Buffer.from(salt, 'base64'), hash: hashBytes };
}

const derive = (password: string, salt: Buffer, keylen: number, params: ScryptParams): Promise<Buffer> =>
  scrypt(password, salt, keylen, { ...params, maxmem: scryptMemory(params) });

const format = (params: ScryptParams, salt: Buffer, hash: Buffer): string =>
  `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${hash.toString('base64')}`;

/**
 * Hashes passwords with the configured scrypt parameters and verifies any stored hash with the parameters written
 * in it, saying when a right password's hash is weaker than today's, so sign-in can replace it.
 */
export class PasswordHasher {
  /** A hash of a password nobody has, with today's parameters: an unknown email costs what a wrong password does. */
  readonly dummyHash: string;

  constructor(readonly params: ScryptParams) {
    const problem = scryptParamsProblem(params);
    if (problem !== null) throw new Error(`password hash parameters: ${problem}`);
    this.dummyHash = format(params, Buffer.alloc(SALT_BYTES), Buffer.alloc(KEY_BYTES));
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    return format(this.params, salt, await derive(password, salt, KEY_BYTES, this.params));
  }

  /**
   * Whether the password matches (compared in constant time), and for a match whether the stored parameters fall
   * short of today's in any of N, r or p (`rehash`). A hash this code cannot read is a mismatch.
   */
  async verify(password: string, stored: string): Promise<{ ok: boolean; rehash: boolean }> {
    const parsed = parseStored(stored);
    if (!parsed) return { ok: false, rehash: false };
    const actual = await derive(password, parsed.salt, parsed.hash.length, parsed.params);
    const ok = digestsEqual(actual, parsed.hash);
    return { ok, rehash: ok && !atLeast(parsed.params, this.params) };
  }
}
