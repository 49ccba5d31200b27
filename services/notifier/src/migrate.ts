import { createLogger } from '@pl/telemetry';
import { loadConfig } from './config';
import { migrateNotifier } from './data/migrate';

/** CLI: applies the notifier migrations to DATABASE_URL and exits. */
async function main(): Promise<void> {
  const config = loadConfig();
  await migrateNotifier(config.DATABASE_URL, createLogger('notifier-migrate', config.LOG_LEVEL));
}

main().catch((err: unknown) => {
  createLogger('notifier-migrate').fatal({ err }, 'notifier migrations failed');
  process.exit(1);
});
