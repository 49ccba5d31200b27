import { commonEnv, parseConfig } from '@pl/config';
import { AppError } from '@pl/errors';
import { assertNoDevSecrets, shopStorageEnv } from '../../../services/shops/src/config';

/** What the CLI reads: the database, and the shops service's secret key and webhook rule (it writes shops too). */
export function loadAdminConfig(env: NodeJS.ProcessEnv = process.env) {
  try {
    const config = parseConfig({ NODE_ENV: commonEnv.NODE_ENV, DATABASE_URL: commonEnv.DATABASE_URL, ...shopStorageEnv }, env);
    assertNoDevSecrets(config);
    return config;
  } catch (e) {
    throw new AppError('validation', 'common.err.invalid_config', e instanceof Error ? e.message : String(e));
  }
}

export type AdminConfig = ReturnType<typeof loadAdminConfig>;
