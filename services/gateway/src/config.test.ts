import { DEV_IDENTITY_SECRET, DEV_TWO_FACTOR_SECRET_KEY } from '@pl/config';
import { DEV_PROVIDER_SANDBOX_SECRET, loadConfig } from './config';

const production = {
  NODE_ENV: 'production',
  IDENTITY_TOKEN_SECRET: 'p'.repeat(40),
  PUBLIC_BASE_URL: 'https://pay.example.com',
  PROVIDER_SANDBOX_LIVE: 'true',
  TWO_FACTOR_SECRET_KEY: Buffer.alloc(32, 9).toString('base64'),
};

describe('gateway configuration', () => {
  it('uses the development sandbox secret outside production', () => {
    expect(loadConfig({}).PROVIDER_SANDBOX_SECRET).toBe(DEV_PROVIDER_SANDBOX_SECRET);
  });

  it('refuses the development sandbox secret in production and a short one anywhere', () => {
    expect(() => loadConfig(production)).toThrow(/PROVIDER_SANDBOX_SECRET must be set in production/);
    expect(() => loadConfig({ PROVIDER_SANDBOX_SECRET: 'short' })).toThrow(/PROVIDER_SANDBOX_SECRET/);
    expect(loadConfig({ ...production, PROVIDER_SANDBOX_SECRET: 's'.repeat(40) }).PROVIDER_SANDBOX_SECRET).toBe('s'.repeat(40));
  });

  it('refuses an http PUBLIC_BASE_URL in production, the default included, and names it', () => {
    const secrets = { PROVIDER_SANDBOX_SECRET: 's'.repeat(40) };
    expect(() => loadConfig({ ...production, ...secrets, PUBLIC_BASE_URL: 'http://pay.example.com' })).toThrow(
      /PUBLIC_BASE_URL must be an https URL in production/,
    );
    const { PUBLIC_BASE_URL: _unset, ...withoutBaseUrl } = production;
    expect(() => loadConfig({ ...withoutBaseUrl, ...secrets })).toThrow(/PUBLIC_BASE_URL must be an https URL in production/);
    expect(loadConfig({ ...production, ...secrets }).PUBLIC_BASE_URL).toBe('https://pay.example.com');
    expect(loadConfig({ PUBLIC_BASE_URL: 'http://localhost:8080' }).PUBLIC_BASE_URL).toBe('http://localhost:8080');
  });

  it('refuses the development two-factor key in production, and a key that is not 32 bytes anywhere', () => {
    const { TWO_FACTOR_SECRET_KEY: _unset, ...withoutKey } = production;
    expect(() => loadConfig({ ...withoutKey, PROVIDER_SANDBOX_SECRET: 's'.repeat(40) })).toThrow(/TWO_FACTOR_SECRET_KEY must be set in production/);
    expect(() => loadConfig({ TWO_FACTOR_SECRET_KEY: Buffer.alloc(16).toString('base64') })).toThrow(/TWO_FACTOR_SECRET_KEY/);
    expect(loadConfig({}).TWO_FACTOR_SECRET_KEY).toBe(DEV_TWO_FACTOR_SECRET_KEY);
  });

  it('still refuses the development identity secret in production', () => {
    expect(() => loadConfig({ ...production, IDENTITY_TOKEN_SECRET: DEV_IDENTITY_SECRET, PROVIDER_SANDBOX_SECRET: 's'.repeat(40) })).toThrow(
      /IDENTITY_TOKEN_SECRET/,
    );
  });

  it('hashes passwords with OWASP’s N=2^14, r=8, p=5 unless PASSWORD_SCRYPT says otherwise, and never below the old parameters', () => {
    expect(loadConfig({}).PASSWORD_SCRYPT).toEqual({ N: 16384, r: 8, p: 5 });
    expect(loadConfig({ PASSWORD_SCRYPT: 'N=131072,r=8,p=1' }).PASSWORD_SCRYPT).toEqual({ N: 131072, r: 8, p: 1 });
    // The tests' cheaper setting: the parameters of hashes stored before they carried them, and no less.
    expect(loadConfig({ NODE_ENV: 'test', PASSWORD_SCRYPT: 'N=16384,r=8,p=1' }).PASSWORD_SCRYPT).toEqual({ N: 16384, r: 8, p: 1 });
    expect(() => loadConfig({ PASSWORD_SCRYPT: 'N=8192,r=8,p=10' })).toThrow(/PASSWORD_SCRYPT: weaker than N=16384,r=8,p=1/);
    expect(() => loadConfig({ PASSWORD_SCRYPT: 'N=16384,r=4,p=1' })).toThrow(/PASSWORD_SCRYPT/);
    expect(() => loadConfig({ PASSWORD_SCRYPT: 'N=16000,r=8,p=5' })).toThrow(/PASSWORD_SCRYPT: N must be a power of two/);
    expect(() => loadConfig({ PASSWORD_SCRYPT: 'scrypt' })).toThrow(/PASSWORD_SCRYPT: expected N=/);
  });

  it('refuses password hash parameters below OWASP’s minimum in production', () => {
    const safe = { ...production, PROVIDER_SANDBOX_SECRET: 's'.repeat(40) };
    expect(loadConfig(safe).PASSWORD_SCRYPT).toEqual({ N: 16384, r: 8, p: 5 });
    expect(() => loadConfig({ ...safe, PASSWORD_SCRYPT: 'N=16384,r=8,p=1' })).toThrow(/PASSWORD_SCRYPT must meet OWASP/);
    expect(() => loadConfig({ ...safe, PASSWORD_SCRYPT: 'N=65536,r=8,p=1' })).toThrow(/PASSWORD_SCRYPT must meet OWASP/);
    expect(loadConfig({ ...safe, PASSWORD_SCRYPT: 'N=65536,r=8,p=2' }).PASSWORD_SCRYPT).toEqual({ N: 65536, r: 8, p: 2 });
  });
});
