import { randomBytes } from 'node:crypto';
import { DEV_IDENTITY_SECRET } from '@pl/config';
import { loadAdminBusConfig, loadAdminConfig } from './config';

const production = { NODE_ENV: 'production', WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') };

describe('admin CLI configuration in production', () => {
  it('starts with a key of its own and private webhook targets refused', () => {
    expect(loadAdminConfig(production).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
  });

  it('refuses the development webhook key as common.err.invalid_config, naming it', () => {
    expect(() => loadAdminConfig({ NODE_ENV: 'production' })).toThrow(
      expect.objectContaining({ code: 'common.err.invalid_config', message: expect.stringMatching(/WEBHOOK_SECRET_KEY must be set in production/) }),
    );
  });

  it('refuses WEBHOOK_ALLOW_PRIVATE_TARGETS=true, naming it', () => {
    expect(() => loadAdminConfig({ ...production, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_TARGETS must be false in production/,
    );
  });

  it('refuses the development identity secret for the commands that use the bus', () => {
    expect(() => loadAdminBusConfig({ NODE_ENV: 'production', IDENTITY_TOKEN_SECRET: DEV_IDENTITY_SECRET })).toThrow(
      /IDENTITY_TOKEN_SECRET must be set in production/,
    );
    expect(loadAdminBusConfig({ NODE_ENV: 'production', IDENTITY_TOKEN_SECRET: 'i'.repeat(40) }).NATS_URL).toBe('nats://127.0.0.1:4222');
  });

  it('allows private targets and the development key outside production (local runs)', () => {
    expect(loadAdminConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
  });
});
