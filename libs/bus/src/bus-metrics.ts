import { isAppError } from '@pl/errors';
import { DURATION_BUCKETS, Histogram, registeredMetric, type Registry } from '@pl/telemetry';

/** How a NATS request ended: `ok`, the domain error kind (`not_found`, `validation`…), or `internal`. */
export const outcomeOf = (e: unknown): string => (isAppError(e) ? e.kind : 'internal');

export type BusSide = 'server' | 'client';

/**
 * `nats_<side>_request_duration_seconds{subject,outcome}`: one histogram per side; its `_count` is the
 * request rate and errors are the series whose outcome is not `ok`.
 */
export function busHistogram(registry: Registry | undefined, side: BusSide): Histogram<'subject' | 'outcome'> | undefined {
  if (!registry) return undefined;
  const name = `nats_${side}_request_duration_seconds`;
  return registeredMetric(
    registry,
    name,
    () =>
      new Histogram({
        name,
        help:
          side === 'server'
            ? 'NATS requests handled by this service, by subject and outcome (ok or the error kind)'
            : 'NATS requests this service sent, by subject and outcome (ok, the error kind, or unavailable on time-out/no responder)',
        labelNames: ['subject', 'outcome'],
        buckets: DURATION_BUCKETS,
        registers: [registry],
      }),
  );
}
