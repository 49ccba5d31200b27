import { commonEnv, parseConfig, publicBaseUrl } from '@pl/config';
import { AppError } from '@pl/errors';
import { shopStorageEnv } from '@pl/shops';

const invalidConfig = (e: unknown): AppError => new AppError('validation', 'common.err.invalid_config', e instanceof Error ? e.message : String(e));

/**
 * What every command reads: the database, and the shops service's webhook rule (the CLI writes shops too).
 * In production private webhook targets are refused, as in the shops service.
 */
export function loadAdminConfig(env: NodeJS.ProcessEnv = process.env) {
  try {
    return parseConfig(
      {
        NODE_ENV: commonEnv.NODE_ENV,
        DATABASE_URL: commonEnv.DATABASE_URL,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: shopStorageEnv.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      },
      env,
    );
  } catch (e) {
    throw invalidConfig(e);
  }
}

export type AdminConfig = ReturnType<typeof loadAdminConfig>;

/**
 * The key that seals shops' webhook secrets, as the shops service holds it; in production the development key is
 * refused. Only a command that stores a webhook secret needs it, so the CLI runs in the gateway's pod, which
 * does not hold the key, for everything else.
 */
export function loadAdminSecretKey(env: NodeJS.ProcessEnv = process.env): string {
  try {
    return parseConfig({ NODE_ENV: commonEnv.NODE_ENV, WEBHOOK_SECRET_KEY: shopStorageEnv.WEBHOOK_SECRET_KEY }, env).WEBHOOK_SECRET_KEY;
  } catch (e) {
    throw invalidConfig(e);
  }
}

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
    throw invalidConfig(e);
  }
}

/** What `link:show` reads to print a link's checkout URL as merchants see it; parsed only by that command. */
export function loadAdminLinkConfig(env: NodeJS.ProcessEnv = process.env) {
  try {
    return parseConfig({ NODE_ENV: commonEnv.NODE_ENV, PUBLIC_BASE_URL: publicBaseUrl }, env);
  } catch (e) {
    throw invalidConfig(e);
  }
}
