import { commonEnv, parseConfig } from '@pl/config';
import { AppError } from '@pl/errors';
import { shopStorageEnv } from '@pl/shops';

/**
 * What the CLI reads: the database, and the shops service's secret key and webhook rule (it writes shops too).
 * In production the development key and private webhook targets are refused, as in the shops service.
 */
export function loadAdminConfig(env: NodeJS.ProcessEnv = process.env) {
  try {
    return parseConfig({ NODE_ENV: commonEnv.NODE_ENV, DATABASE_URL: commonEnv.DATABASE_URL, ...shopStorageEnv }, env);
  } catch (e) {
    throw new AppError('validation', 'common.err.invalid_config', e instanceof Error ? e.message : String(e));
  }
}

export type AdminConfig = ReturnType<typeof loadAdminConfig>;

/**
 * What `payment:confirm` reads to ask the links service over NATS. Parsed only by the commands that
 * need the bus, so the database-only commands keep working without a bus secret in production.
 */
export function loadAdminBusConfig(env: NodeJS.ProcessEnv = process.env) {
  try {
    return parseConfig(
      {
        NODE_ENV: commonEnv.NODE_ENV,
        NATS_URL: commonEnv.NATS_URL,
        BUS_NAMESPACE: commonEnv.BUS_NAMESPACE,
        IDENTITY_TOKEN_SECRET: commonEnv.IDENTITY_TOKEN_SECRET,
        NATS_REQUEST_TIMEOUT_MS: commonEnv.NATS_REQUEST_TIMEOUT_MS,
      },
      env,
    );
  } catch (e) {
    throw new AppError('validation', 'common.err.invalid_config', e instanceof Error ? e.message : String(e));
  }
}
