export { startNotifier } from './app';
export { loadConfig, DEFAULT_WEBHOOK_RETRY_DELAYS_MS, type NotifierConfig } from './config';
export { migrateNotifier, NOTIFIER_SCHEMA } from './data/migrate';
