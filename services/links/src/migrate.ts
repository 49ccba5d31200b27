import { runMigrateCommand } from '@pl/db';
import { createLogger } from '@pl/telemetry';
import { loadConfig } from './config';
import { migrateLinks } from './data/migrate';

/** CLI: applies the links migrations to DATABASE_URL and exits. */
runMigrateCommand({ name: 'links', apply: migrateLinks, loadConfig, createLogger });
