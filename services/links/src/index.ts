// The service's public entry (`@pl/links`): what the operators' CLI and the benchmarks may use. It leaves out
// the app's wiring (startLinks), so importing it starts nothing and loads no server, broker client or HTTP stack.
export { loadConfig, kafkaBrokers, type LinksConfig } from './config';
export { migrateLinks, LINKS_SCHEMA } from './data/migrate';
// The operators' CLI lists and resolves late and unresolved payments and the benchmarks page through links with the service's own code.
export { LatePaymentRepository, UnresolvedPaymentRepository } from './data/unresolved-payment.repository';
export { RefundRepository } from './data/refund.repository';
// The operators' CLI shows one link (link:show) and finds the owner of a link's deliveries.
export { LinkRepository } from './data/link.repository';
// ledger:verify, and the tests that end with it.
export { LedgerRepository, verifyLedger } from './data/ledger.repository';
export type { LatePayment, LinkRecord, UnresolvedPayment, UnresolvedReason } from './domain/link';
// An operator reads any link in its own mode: the store's calls must say so.
export { LINKS_OWN_MODE, type LinksOwnMode } from './domain/ports';
export { toPaymentLink } from './domain/link-view';
// The operators' CLI resolves late payments (payment:late:resolve) and any unresolved one (unresolved:resolve) with the service's own code.
export { resolveLatePayment, resolveUnresolvedPayment, type LateResolveCommand, type UnresolvedResolveCommand } from './domain/unresolved-payment';
export { unresolvedView } from './domain/payment-event';
export { encodeCursor, decodeCursor } from './domain/cursor';
// The daily report's tests page through it with the service's own code at any page size.
export { DailyReportRepository, REPORT_SOURCES } from './data/daily-report.repository';
export { getDailyReportPage } from './domain/daily-report';
// Payouts: the operators' CLI lists them (payout:list); the rails move them with these transitions (docs/payouts.md).
export { PayoutRepository } from './data/payout.repository';
export { toPayout } from './domain/payout-view';
export { markPayoutFailed, markPayoutPaid, markPayoutProcessing, type PayoutTransitionDeps } from './domain/payout-transitions';
export type { PayoutRail, PayoutRecord } from './domain/payout';
// Bank payouts: batches exported as 1C payment files and the bank's statement imported back (payout:batch:*,
// payout:statement:import; docs/adr/0045-payout-batches-and-statement-import.md).
export { PayoutBatchRepository } from './data/payout-batch.repository';
export { PayoutStatementRepository } from './data/payout-statement.repository';
export type { PayoutBatch, PayoutBatchOrder, PayoutBatchProgress } from './domain/payout-batch';
export type { StatementOperation } from './domain/payout-statement';
export { importPayoutStatement, type StatementImportSummary, type StatementLineReport, type UnmatchedReason } from './domain/payout-statement-import';
// The operators' CLI lists the payout scheduler's decisions (payout:schedule-runs, docs/adr/0046).
export { PayoutScheduleRunRepository } from './data/payout-schedule-run.repository';
