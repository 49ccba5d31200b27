import { randomBytes, scryptSync } from 'node:crypto';
import {
  DEFAULT_SCRYPT,
  LEGACY_SCRYPT,
  meetsOwaspMinimum,
  PasswordHasher,
  parseScryptSetting,
  scryptMemory,
  scryptParamsProblem,
} from './password-hash';

/** A hash as stored before parameters were written in it: `scrypt$salt$hash`, N=2^14, r=8, p=1. */
function legacyHash(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')}`;
}

const legacy = new PasswordHasher(LEGACY_SCRYPT);

describe('password hashes', () => {
  it('writes its parameters into every hash and verifies it', async () => {
    const stored = await legacy.hash('a long enough password');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    await expect(legacy.verify('a long enough password', stored)).resolves.toEqual({ ok: true, rehash: false });
    await expect(legacy.verify('a long enough passworD', stored)).resolves.toEqual({ ok: false, rehash: false });
  });

  it('reads a hash without parameters as N=2^14, r=8, p=1 and asks to raise it when today’s are stronger', async () => {
    const old = legacyHash('the old password');
    await expect(legacy.verify('the old password', old)).resolves.toEqual({ ok: true, rehash: false });
    const owasp = new PasswordHasher(DEFAULT_SCRYPT);
    await expect(owasp.verify('the old password', old)).resolves.toEqual({ ok: true, rehash: true });
    // A wrong password never asks for a re-hash: there is nothing to hash.
    await expect(owasp.verify('not the old password', old)).resolves.toEqual({ ok: false, rehash: false });
  });

  it('verifies a stronger stored hash with its own parameters and leaves it be', async () => {
    const stronger = await new PasswordHasher({ N: 2 ** 14, r: 8, p: 6 }).hash('pw');
    await expect(new PasswordHasher(DEFAULT_SCRYPT).verify('pw', stronger)).resolves.toEqual({ ok: true, rehash: false });
  });

  it('sets maxmem from the parameters, so a hash above Node’s 32 MiB default works (N=2^15, r=8)', async () => {
    const big = { N: 2 ** 15, r: 8, p: 1 };
    expect(scryptMemory(big)).toBeGreaterThan(32 * 1024 * 1024);
    const hasher = new PasswordHasher(big);
    await expect(hasher.verify('pw', await hasher.hash('pw'))).resolves.toEqual({ ok: true, rehash: false });
  });

  it.each([
    ['another scheme', 'bcrypt$2b$10$abcdefghijklmnopqrstuv'],
    ['N not a power of two', 'scrypt$16385$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
    ['N past the bound (gigabytes)', 'scrypt$4194304$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
    ['a missing part', 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA=='],
    ['an empty hash', 'scrypt$AAAAAAAAAAAAAAAAAAAAAA==$'],
    ['text in a parameter', 'scrypt$N$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
  ])('refuses a stored hash it cannot read (%s) as a mismatch', async (_what, stored) => {
    await expect(legacy.verify('pw', stored)).resolves.toEqual({ ok: false, rehash: false });
  });

  it('has a dummy hash with today’s parameters that no password matches', async () => {
    const owasp = new PasswordHasher(DEFAULT_SCRYPT);
    expect(owasp.dummyHash.startsWith('scrypt$16384$8$5$')).toBe(true);
    await expect(owasp.verify('', owasp.dummyHash)).resolves.toEqual({ ok: false, rehash: false });
  });
});

describe('password hash parameters', () => {
  it('takes OWASP’s rows and what exceeds one of them in every parameter', () => {
    expect(meetsOwaspMinimum(DEFAULT_SCRYPT)).toBe(true);
    expect(meetsOwaspMinimum({ N: 2 ** 17, r: 8, p: 1 })).toBe(true);
    expect(meetsOwaspMinimum({ N: 2 ** 15, r: 8, p: 3 })).toBe(true);
    expect(meetsOwaspMinimum({ N: 2 ** 15, r: 8, p: 5 })).toBe(true);
    expect(meetsOwaspMinimum(LEGACY_SCRYPT)).toBe(false);
    expect(meetsOwaspMinimum({ N: 2 ** 14, r: 8, p: 4 })).toBe(false);
    expect(meetsOwaspMinimum({ N: 2 ** 17, r: 4, p: 1 })).toBe(false);
  });

  it('reads the setting’s spelling and bounds what it names', () => {
    expect(parseScryptSetting('N=131072, r=8, p=1')).toEqual({ N: 131072, r: 8, p: 1 });
    expect(parseScryptSetting('N=16384,r=8')).toBeNull();
    expect(scryptParamsProblem({ N: 3000, r: 8, p: 1 })).toMatch(/power of two/);
    expect(scryptParamsProblem({ N: 2 ** 20, r: 8, p: 1 })).toMatch(/MiB/);
    expect(scryptParamsProblem({ N: 2 ** 14, r: 8, p: 17 })).toMatch(/^p /);
    expect(() => new PasswordHasher({ N: 2 ** 14, r: 0, p: 1 })).toThrow(/^password hash parameters: r /);
  });
});
