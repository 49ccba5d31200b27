import { z } from 'zod';
import { commonEnv, parseConfig } from './index';
import { DEV_IDENTITY_SECRET, DEV_PROVIDER_SANDBOX_SECRET, DEV_WEBHOOK_SECRET_KEY, unsafeProductionSettings } from './production-safety';

const safe = {
  NODE_ENV: 'production',
  PUBLIC_BASE_URL: 'https://pay.example.com',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: false,
  IDENTITY_TOKEN_SECRET: 'i'.repeat(40),
  PROVIDER_SANDBOX_SECRET: 'p'.repeat(40),
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
};

describe('unsafeProductionSettings', () => {
  it('finds nothing wrong with https, no private targets and secrets of its own', () => {
    expect(unsafeProductionSettings(safe)).toEqual([]);
  });

  it.each([
    ['an http PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'http://pay.example.com' }, 'PUBLIC_BASE_URL must be an https URL in production'],
    ['an upper-case HTTP PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'HTTP://pay.example.com' }, 'PUBLIC_BASE_URL must be an https URL in production'],
    ['private webhook targets allowed', { WEBHOOK_ALLOW_PRIVATE_TARGETS: true }, 'WEBHOOK_ALLOW_PRIVATE_TARGETS must be false in production'],
    ['the development identity secret', { IDENTITY_TOKEN_SECRET: DEV_IDENTITY_SECRET }, 'IDENTITY_TOKEN_SECRET must be set in production'],
    ['the development sandbox secret', { PROVIDER_SANDBOX_SECRET: DEV_PROVIDER_SANDBOX_SECRET }, 'PROVIDER_SANDBOX_SECRET must be set in production'],
    ['the development webhook key', { WEBHOOK_SECRET_KEY: DEV_WEBHOOK_SECRET_KEY }, 'WEBHOOK_SECRET_KEY must be set in production'],
  ])('names %s', (_situation, change, problem) => {
    const problems = unsafeProductionSettings({ ...safe, ...change });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });

  it('refuses a live method on the sandbox unless a demo deployment says it means it', () => {
    const onSandbox = { ...safe, PAYMENT_PROVIDER_SBP: 'sandbox', PAYMENT_PROVIDER_CRYPTO: 'heleket', PROVIDER_SANDBOX_LIVE: false };
    expect(unsafeProductionSettings(onSandbox)).toEqual([
      'PAYMENT_PROVIDER_SBP must name a real provider in production (or PROVIDER_SANDBOX_LIVE=true for a demo deployment)',
    ]);
    expect(unsafeProductionSettings({ ...onSandbox, PAYMENT_PROVIDER_CRYPTO: 'sandbox' })).toHaveLength(2);
    expect(unsafeProductionSettings({ ...onSandbox, PAYMENT_PROVIDER_CRYPTO: 'sandbox', PROVIDER_SANDBOX_LIVE: true })).toEqual([]);
    expect(unsafeProductionSettings({ ...onSandbox, PAYMENT_PROVIDER_SBP: 'raiffeisen' })).toEqual([]);
    expect(unsafeProductionSettings({ ...onSandbox, NODE_ENV: 'development' })).toEqual([]);
  });

  it('allows all of them outside production, where local runs and tests need them', () => {
    const dev = { PUBLIC_BASE_URL: 'http://localhost:8080', WEBHOOK_ALLOW_PRIVATE_TARGETS: true, IDENTITY_TOKEN_SECRET: DEV_IDENTITY_SECRET };
    expect(unsafeProductionSettings({ ...dev, NODE_ENV: 'development' })).toEqual([]);
    expect(unsafeProductionSettings({ ...dev, NODE_ENV: 'test' })).toEqual([]);
  });

  it('judges only the settings a configuration reads', () => {
    expect(unsafeProductionSettings({ NODE_ENV: 'production' })).toEqual([]);
  });
});

describe('parseConfig in production', () => {
  const shape = { ...commonEnv, PUBLIC_BASE_URL: z.string().default('http://localhost:8080') };

  it('refuses to start, naming every unsafe setting at once', () => {
    expect(() => parseConfig(shape, { NODE_ENV: 'production' })).toThrow(
      'Invalid configuration: PUBLIC_BASE_URL must be an https URL in production; IDENTITY_TOKEN_SECRET must be set in production (the development default is refused)',
    );
  });

  it('starts with safe settings', () => {
    const env = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com', IDENTITY_TOKEN_SECRET: 'i'.repeat(40) };
    expect(parseConfig(shape, env).PUBLIC_BASE_URL).toBe('https://pay.example.com');
  });
});
