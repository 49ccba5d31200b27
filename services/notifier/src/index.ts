export { startNotifier } from './app';
export { loadConfig, DEFAULT_WEBHOOK_RETRY_DELAYS_MS, WEBHOOK_ATTEMPTS, type NotifierConfig } from './config';
export { migrateNotifier, NOTIFIER_SCHEMA } from './data/migrate';
export { webhookHeaders, hexSignature, standardSignature } from './domain/webhook-signature';
export { nextRetryDelayMs, parseRetryAfter } from './domain/retry-schedule';
