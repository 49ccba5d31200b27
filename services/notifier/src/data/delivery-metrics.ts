import { mode, modeOfLivemode } from '@pl/contracts';
import type { Db } from '@pl/db';
import { Counter, scrapedGauge, type Registry } from '@pl/telemetry';
import type { AttemptResult, AttemptVerdict, Claim, ClaimedDelivery, ClaimOptions, DeliveryQueue } from '../domain/delivery';

/**
 * The delivery metrics the alerts need beyond `webhook_queue_depth`: how long the longest-waiting due
 * delivery has waited (`webhook_queue_oldest_due_age_seconds`, read at scrape time through the partial
 * index of pending deliveries) and the deliveries that used up every attempt
 * (`webhook_deliveries_exhausted_total`, counted as the worker records their last attempt). Both are per
 * `mode` (`live`, `test`): a merchant's test endpoint that is down is its own business, not a live incident.
 * Returns the queue the worker should use: `queue`, with the count kept.
 */
export function instrumentDeliveries(queue: DeliveryQueue, db: Db, metrics: Registry): DeliveryQueue {
  scrapedGauge(metrics, {
    name: 'webhook_queue_oldest_due_age_seconds',
    help: 'How long the pending delivery that has been due the longest has waited for an attempt (0 when none is due), by mode',
    labelNames: ['mode'],
    read: async () => {
      const rows = await db.query<{ livemode: boolean; age: number }>(
        `SELECT livemode, EXTRACT(EPOCH FROM now() - min(next_attempt_at))::float8 AS age
           FROM deliveries WHERE status = 'pending' AND next_attempt_at <= now() GROUP BY livemode`,
      );
      const age = new Map(rows.map((r) => [modeOfLivemode(r.livemode), r.age]));
      // Both modes always, so an alert on one finds its series (0) while nothing of that mode is due.
      return mode.options.map((m) => ({ labels: { mode: m }, value: age.get(m) ?? 0 }));
    },
  });
  const exhausted = new Counter({
    name: 'webhook_deliveries_exhausted_total',
    help: 'Deliveries that failed their last attempt with no retry left (the delivery log shows them as failed), by mode',
    labelNames: ['mode'],
    registers: [metrics],
  });
  // Counted from 0 in both modes, so an alert's increase() over one has a series from the start.
  for (const m of mode.options) exhausted.inc({ mode: m }, 0);
  return {
    claimDue: (options: ClaimOptions): Promise<Claim> => queue.claimDue(options),
    release: (claim: ClaimedDelivery, retryInMs: number): Promise<void> => queue.release(claim, retryInMs),
    async recordAttempt(claim: ClaimedDelivery, endpoint: string | null, result: AttemptResult, verdict: AttemptVerdict): Promise<number> {
      const broughtForward = await queue.recordAttempt(claim, endpoint, result, verdict);
      if (verdict.status === 'failed') exhausted.inc({ mode: claim.mode });
      return broughtForward;
    },
  };
}
