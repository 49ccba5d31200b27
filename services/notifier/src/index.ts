// The service's public entry (`@pl/notifier`): what the operators' CLI and the benchmarks may use. It leaves out
// the app's wiring (startNotifier), so importing it starts nothing and loads no server, broker client or HTTP stack.
export { loadConfig, DEFAULT_WEBHOOK_RETRY_DELAYS_MS, WEBHOOK_ATTEMPTS, type NotifierConfig } from './config';
export { migrateNotifier, NOTIFIER_SCHEMA } from './data/migrate';
export { webhookHeaders, hexSignature, standardSignature } from './domain/webhook-signature';
export { nextRetryDelayMs, parseRetryAfter } from './domain/retry-schedule';
// The operators' CLI reads the delivery log (deliveries:list) with the service's own repository and view.
export { DeliveryRepository } from './data/delivery.repository';
export { toWebhookDelivery, toWebhookDeliveryList, encodeDeliveryCursor, decodeDeliveryCursor } from './domain/delivery-log';
