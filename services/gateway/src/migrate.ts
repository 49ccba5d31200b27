import { runMigrateCommand } from '@pl/db';
import { createLogger } from '@pl/telemetry';
import { loadConfig } from './config';
import { migrateGateway } from './data/migrate';

/** CLI: applies the gateway migrations to DATABASE_URL and exits. */
runMigrateCommand({ name: 'gateway', apply: migrateGateway, loadConfig, createLogger });
