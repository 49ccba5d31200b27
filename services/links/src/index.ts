export { startLinks, createOutboxRelay } from './app';
export { loadConfig, kafkaBrokers, type LinksConfig } from './config';
export { migrateLinks, LINKS_SCHEMA } from './data/migrate';
export { EVENT_ID_HEADER, EVENT_TYPE_HEADER, CONTENT_TYPE_HEADER } from './domain/payment-event';
export type { PaymentProvider, ProviderPayment, PaymentRequest } from './domain/providers/payment-provider';
export { SandboxProvider, SANDBOX_PROVIDER } from './domain/providers/sandbox.provider';
