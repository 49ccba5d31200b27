// The service's test entry (`@pl/links/testing`): everything of the public entry plus the app's wiring and the
// domain pieces that system tests drive directly. Only test code may import it (eslint.config.mjs); the admin
// CLI and the benchmarks keep to `@pl/links`, which starts nothing.
export * from './index';
export { startLinks } from './app';
export type { FinalStatus } from './domain/link';
export type { LinksCrashPoint } from './domain/ports';
export { toBuyerLinkView } from './domain/buyer-view';
export { listedLink, toPaymentLinkPageJson } from './domain/link-view';
export { sampleNewLink } from './domain/sample-link.fixture';
export { ATTEMPTS_SHOWN, toPaymentAttemptList } from './domain/list-attempts';
// The payout scheduler's tests run two of its passes at once with a clock of their own (docs/adr/0046).
export { payoutSchedulerDeps } from './entry/background/payout-scheduler';
export { runPayoutSchedule } from './domain/run-payout-schedule';
