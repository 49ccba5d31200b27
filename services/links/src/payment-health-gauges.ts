import { scrapedGauge, type Registry } from '@pl/telemetry';
import type { PaymentHealthRepository, UnfinishedAttempts, UnresolvedPayments, WaitingPayouts } from './data/payment-health.repository';

/** One query per scrape, shared by the gauges that read it. */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => (pending ??= read().finally(() => (pending = undefined)));
}

/**
 * Unfinished attempts by provider, mode and age, and unresolved payments by reason, read when Prometheus scrapes
 * (the PrometheusRule alerts on an attempt unfinished an hour past its link's expiry and on an unresolved payment
 * older than a day), and live payouts waiting on their rail (the alerts on a payout stuck at Heleket or at the bank).
 * A provider, reason or rail with none has no series: the alerts compare what is there.
 */
export function registerPaymentHealthGauges(metrics: Registry, health: PaymentHealthRepository): void {
  const attempts = sharedRead(() => health.unfinishedAttempts());
  const unresolved = sharedRead(() => health.unresolvedPayments());
  const byAttempts = (value: (a: UnfinishedAttempts) => number) => async () =>
    (await attempts()).map((a) => ({ labels: { provider: a.provider, mode: a.mode }, value: value(a) }));
  const payouts = sharedRead(() => health.waitingPayouts());
  const byRail = (value: (p: WaitingPayouts) => number) => async () =>
    (await payouts()).map((p) => ({ labels: { rail: p.rail, status: p.status }, value: value(p) }));
  const byReason = (value: (u: UnresolvedPayments) => number) => async () =>
    (await unresolved()).map((u) => ({ labels: { reason: u.reason, mode: u.mode }, value: value(u) }));

  scrapedGauge(metrics, {
    name: 'payment_attempts_unfinished',
    help: 'Payment attempts not final yet (creating, pending at the provider, or outcome unknown), by provider and mode',
    labelNames: ['provider', 'mode'],
    read: byAttempts((a) => a.count),
  });
  scrapedGauge(metrics, {
    name: 'payment_attempts_unfinished_oldest_age_seconds',
    help: 'Age of the oldest unfinished payment attempt, by provider and mode',
    labelNames: ['provider', 'mode'],
    read: byAttempts((a) => a.oldestAgeSeconds),
  });
  scrapedGauge(metrics, {
    name: 'payment_attempts_unfinished_past_expiry_seconds',
    help: "How long past its link's expiry the most overdue unfinished payment attempt is (0 when none is past it), by provider and mode",
    labelNames: ['provider', 'mode'],
    read: byAttempts((a) => a.pastExpirySeconds),
  });
  scrapedGauge(metrics, {
    name: 'unresolved_payments',
    help: 'Payments that arrived but paid no pending link and are not settled or refunded yet, by reason and mode',
    labelNames: ['reason', 'mode'],
    read: byReason((u) => u.count),
  });
  scrapedGauge(metrics, {
    name: 'unresolved_payments_oldest_age_seconds',
    help: 'Age of the oldest unresolved payment, by reason and mode',
    labelNames: ['reason', 'mode'],
    read: byReason((u) => u.oldestAgeSeconds),
  });
  scrapedGauge(metrics, {
    name: 'payouts_waiting',
    help: 'Live payouts approved and not yet handed to their rail, or processing at it, by rail and status',
    labelNames: ['rail', 'status'],
    read: byRail((p) => p.count),
  });
  scrapedGauge(metrics, {
    name: 'payouts_waiting_oldest_age_seconds',
    help: 'How long the longest-waiting live payout has been in its status (approved or processing), by rail and status',
    labelNames: ['rail', 'status'],
    read: byRail((p) => p.oldestAgeSeconds),
  });
}
