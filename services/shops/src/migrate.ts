import { commonEnv, parseConfig } from '@pl/config';
import { runMigrateCommand } from '@pl/db';
import { createLogger } from '@pl/telemetry';
import { migrateShops } from './data/migrate';

/** CLI: applies the shops migrations to DATABASE_URL and exits; it reads only the two settings it needs. */
runMigrateCommand({
  name: 'shops',
  apply: migrateShops,
  loadConfig: () => parseConfig({ DATABASE_URL: commonEnv.DATABASE_URL, LOG_LEVEL: commonEnv.LOG_LEVEL }),
  createLogger,
});
