// The service's test entry (`@pl/notifier/testing`): everything of the public entry plus the app's wiring and the
// domain pieces that system tests drive directly. Only test code may import it (eslint.config.mjs); the admin
// CLI and the benchmarks keep to `@pl/notifier`, which starts nothing.
export * from './index';
export { startNotifier } from './app';
export type { AttemptRecord, DeliveryRecord } from './domain/delivery';
export type { NotifierCrashPoint } from './domain/ports';
