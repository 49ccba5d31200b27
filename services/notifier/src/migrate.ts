import { runMigrateCommand } from '@pl/db';
import { createLogger } from '@pl/telemetry';
import { loadConfig } from './config';
import { migrateNotifier } from './data/migrate';

/** CLI: applies the notifier migrations to DATABASE_URL and exits. */
runMigrateCommand({ name: 'notifier', apply: migrateNotifier, loadConfig, createLogger });
