import { randomBytes } from 'node:crypto';
import { DEV_IDENTITY_SECRET } from '@pl/config';
import { loadAdminBusConfig, loadAdminConfig, loadAdminLinkConfig, loadAdminSecretKey } from './config';

describe('admin CLI configuration in production', () => {
  it('starts without the webhook key (the gateway pod holds none), private webhook targets refused', () => {
    expect(loadAdminConfig({ NODE_ENV: 'production' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
  });

  it('takes a key of its own to seal webhook secrets', () => {
    const key = randomBytes(32).toString('base64');
    expect(loadAdminSecretKey({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: key })).toBe(key);
  });

  it('refuses the development webhook key as common.err.invalid_config, naming it', () => {
    expect(() => loadAdminSecretKey({ NODE_ENV: 'production' })).toThrow(
      expect.objectContaining({ code: 'common.err.invalid_config', message: expect.stringMatching(/WEBHOOK_SECRET_KEY must be set in production/) }),
    );
  });

  it('refuses WEBHOOK_ALLOW_PRIVATE_TARGETS=true, naming it', () => {
    expect(() => loadAdminConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_TARGETS must be false in production/,
    );
  });

  it('refuses the development identity secret for the commands that use the bus', () => {
    expect(() => loadAdminBusConfig({ NODE_ENV: 'production', IDENTITY_TOKEN_SECRET: DEV_IDENTITY_SECRET })).toThrow(
      /IDENTITY_TOKEN_SECRET must be set in production/,
    );
    expect(loadAdminBusConfig({ NODE_ENV: 'production', IDENTITY_TOKEN_SECRET: 'i'.repeat(40) }).NATS_URL).toBe('nats://127.0.0.1:4222');
  });

  it('refuses an http PUBLIC_BASE_URL for link:show', () => {
    expect(() => loadAdminLinkConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'http://pay.example.com' })).toThrow(
      /PUBLIC_BASE_URL must be an https URL/,
    );
    expect(loadAdminLinkConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com/' }).PUBLIC_BASE_URL).toBe(
      'https://pay.example.com',
    );
  });

  it('allows private targets and the development key outside production (local runs)', () => {
    expect(loadAdminConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(loadAdminSecretKey({})).toEqual(expect.any(String));
  });
});
