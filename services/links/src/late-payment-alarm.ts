import { linkStatus, modeOfLivemode } from '@pl/contracts';
import { Counter, type Logger, type Registry } from '@pl/telemetry';
import type { LatePayment } from './domain/link';

/** Every state a late payment can meet: any but pending. */
const FINAL_STATUSES = linkStatus.exclude(['pending']).options;

/**
 * What a newly recorded late payment sets off: `late_payments_total{link_status}` (the PrometheusRule
 * `LatePaymentReceived` alerts on its increase) and a `warn` line an operator can find by link id. Every
 * series starts at 0, so the first late payment of a process is an increase Prometheus can see.
 */
export function latePaymentAlarm(metrics: Registry, log: Logger): (late: LatePayment) => void {
  const recorded = new Counter({
    name: 'late_payments_total',
    help: 'Payments confirmed for links no longer pending (expired, canceled, failed, or paid by another payment), by the state they met',
    labelNames: ['link_status'],
    registers: [metrics],
  });
  for (const status of FINAL_STATUSES) recorded.labels(status).inc(0);
  return (late) => {
    // A payment for a link no longer pending (closed, or paid by another attempt); the other reasons are counted by the
    // unresolved payments' gauge.
    if (late.reason !== 'late' && late.reason !== 'duplicate') return;
    recorded.labels(late.linkStatus).inc();
    log.warn(
      {
        link_id: late.linkId,
        mode: modeOfLivemode(late.livemode),
        link_status: late.linkStatus,
        provider: late.provider,
        gateway_payment_id: late.gatewayPaymentId,
        payer_amount_kopecks: late.payerAmount,
        late_payment_id: late.id,
      },
      'late payment recorded: the buyer paid a link that was no longer pending; refund or settle it (payment:late)',
    );
  };
}
