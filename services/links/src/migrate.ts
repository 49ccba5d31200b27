import { createLogger } from '@pl/telemetry';
import { loadConfig } from './config';
import { migrateLinks } from './data/migrate';

/** CLI: applies the links migrations to DATABASE_URL and exits. */
async function main(): Promise<void> {
  const config = loadConfig();
  await migrateLinks(config.DATABASE_URL, createLogger('links-migrate', config.LOG_LEVEL));
}

main().catch((err: unknown) => {
  createLogger('links-migrate').fatal({ err }, 'links migrations failed');
  process.exit(1);
});
