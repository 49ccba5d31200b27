import { randomBytes } from 'node:crypto';
import { DEV_WEBHOOK_SECRET_KEY, loadConfig } from './config';

const productionEnv = { NODE_ENV: 'production', IDENTITY_TOKEN_SECRET: 'x'.repeat(40) } as const;

describe('shops loadConfig', () => {
  it('defaults to ops port 9102, the dev key and no private webhook targets', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ OPS_PORT: 9102, WEBHOOK_SECRET_KEY: DEV_WEBHOOK_SECRET_KEY, WEBHOOK_ALLOW_PRIVATE_TARGETS: false });
    expect(Buffer.from(DEV_WEBHOOK_SECRET_KEY, 'base64')).toHaveLength(32);
  });

  it('sizes the Postgres pool at 10 connections unless DATABASE_POOL_MAX says otherwise, and refuses 0', () => {
    expect(loadConfig({}).DATABASE_POOL_MAX).toBe(10);
    expect(loadConfig({ DATABASE_POOL_MAX: '3' }).DATABASE_POOL_MAX).toBe(3);
    expect(() => loadConfig({ DATABASE_POOL_MAX: '0' })).toThrow(/DATABASE_POOL_MAX/);
  });

  it('gives merchant-created shops 100 and 100 bps unless SHOP_DEFAULT_CRYPTO_BPS / SHOP_DEFAULT_SBP_BPS say otherwise', () => {
    expect(loadConfig({})).toMatchObject({ SHOP_DEFAULT_CRYPTO_BPS: 100, SHOP_DEFAULT_SBP_BPS: 100 });
    expect(loadConfig({ SHOP_DEFAULT_CRYPTO_BPS: '0', SHOP_DEFAULT_SBP_BPS: '10000' })).toMatchObject({
      SHOP_DEFAULT_CRYPTO_BPS: 0,
      SHOP_DEFAULT_SBP_BPS: 10_000,
    });
  });

  it('refuses default rates outside 0..10000 or not integers, naming the setting', () => {
    expect(() => loadConfig({ SHOP_DEFAULT_CRYPTO_BPS: '10001' })).toThrow(/SHOP_DEFAULT_CRYPTO_BPS/);
    expect(() => loadConfig({ SHOP_DEFAULT_SBP_BPS: '-1' })).toThrow(/SHOP_DEFAULT_SBP_BPS/);
    expect(() => loadConfig({ SHOP_DEFAULT_SBP_BPS: '1.5' })).toThrow(/SHOP_DEFAULT_SBP_BPS/);
  });

  it('reads WEBHOOK_ALLOW_PRIVATE_TARGETS=true as true', () => {
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
  });

  it('refuses a WEBHOOK_ALLOW_PRIVATE_TARGETS that is not true or false', () => {
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_TARGETS/);
  });

  it('refuses a webhook secret key that is not 32 bytes of base64', () => {
    expect(() => loadConfig({ WEBHOOK_SECRET_KEY: randomBytes(16).toString('base64') })).toThrow(/WEBHOOK_SECRET_KEY/);
    expect(() => loadConfig({ WEBHOOK_SECRET_KEY: 'not base64 at all!' })).toThrow(/WEBHOOK_SECRET_KEY/);
  });

  it('refuses the development key in production', () => {
    expect(() => loadConfig({ ...productionEnv })).toThrow(/WEBHOOK_SECRET_KEY must be set in production/);
  });

  it('accepts a real key in production', () => {
    const key = randomBytes(32).toString('base64');
    expect(loadConfig({ ...productionEnv, WEBHOOK_SECRET_KEY: key }).WEBHOOK_SECRET_KEY).toBe(key);
  });

  it('refuses private webhook targets in production, naming the setting', () => {
    const key = randomBytes(32).toString('base64');
    expect(() => loadConfig({ ...productionEnv, WEBHOOK_SECRET_KEY: key, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_TARGETS must be false in production/,
    );
  });

  it('refuses the development identity secret in production, naming it', () => {
    const key = randomBytes(32).toString('base64');
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: key })).toThrow(/IDENTITY_TOKEN_SECRET must be set in production/);
  });
});
