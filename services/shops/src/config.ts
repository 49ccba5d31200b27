import { z } from 'zod';
import { commonEnv, opsPort, parseConfig } from '@pl/config';

/** Development-only webhook-secret key (32 bytes, base64); {@link loadConfig} refuses it in production. */
export const DEV_WEBHOOK_SECRET_KEY = Buffer.from('dev-only-webhook-secret-key-0000', 'utf8').toString('base64');

const flag = z
  .enum(['true', 'false'])
  .default('false')
  .transform((v) => v === 'true');

/**
 * Settings for reading and writing shop records, shared with the admin CLI: both must seal webhook
 * secrets with the same key and apply the same webhook-target rule.
 */
export const shopStorageEnv = {
  WEBHOOK_SECRET_KEY: z
    .string()
    .default(DEV_WEBHOOK_SECRET_KEY)
    .refine((v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32, {
      message: 'must be 32 bytes, base64',
    }),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag,
};

/** Refuses development secrets in production (parseConfig already does so for the identity secret). */
export function assertNoDevSecrets(config: { NODE_ENV: string; WEBHOOK_SECRET_KEY: string }): void {
  if (config.NODE_ENV === 'production' && config.WEBHOOK_SECRET_KEY === DEV_WEBHOOK_SECRET_KEY) {
    throw new Error('Invalid configuration: WEBHOOK_SECRET_KEY must be set in production');
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = parseConfig({ ...commonEnv, OPS_PORT: opsPort(9102), ...shopStorageEnv }, env);
  assertNoDevSecrets(config);
  return config;
}

export type ShopsConfig = ReturnType<typeof loadConfig>;
