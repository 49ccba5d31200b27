import { Counter, registeredMetric, scrapedGauge, type Registry } from '@pl/telemetry';
import type { MailQueue } from './queue';

export interface MailMetrics {
  sent: Counter<'template'>;
  failedAttempts: Counter<'template'>;
  /** `reason`: refused (the server refused the mail for good), attempts (the last one failed), unrenderable. */
  givenUp: Counter<'template' | 'reason'>;
}

/**
 * The queue's gauges, read from Postgres at scrape time (every replica says the same: alerts take the max), and
 * the counters of this process's sends.
 */
export function mailMetrics(registry: Registry, queue: MailQueue): MailMetrics {
  // One scrape reads both gauges; the second reuses the first's query.
  let reading: Promise<{ depth: number; oldestAgeSeconds: number }> | undefined;
  const backlog = (): Promise<{ depth: number; oldestAgeSeconds: number }> => {
    reading ??= queue.backlog().finally(() => setImmediate(() => (reading = undefined)));
    return reading;
  };
  scrapedGauge(registry, {
    name: 'mail_queue_depth',
    help: 'Mails waiting to be sent (new, being sent, or waiting for a retry)',
    read: async () => [{ value: (await backlog()).depth }],
  });
  scrapedGauge(registry, {
    name: 'mail_queue_oldest_age_seconds',
    help: 'Seconds since the oldest mail still waiting to be sent was enqueued (0 when none waits)',
    read: async () => [{ value: (await backlog()).oldestAgeSeconds }],
  });
  return {
    sent: registeredMetric(
      registry,
      'mail_sent_total',
      () => new Counter({ name: 'mail_sent_total', help: 'Mails the SMTP server accepted', labelNames: ['template'], registers: [registry] }),
    ),
    failedAttempts: registeredMetric(
      registry,
      'mail_send_failures_total',
      () =>
        new Counter({
          name: 'mail_send_failures_total',
          help: 'Attempts to send a mail that failed (each is retried until the last)',
          labelNames: ['template'],
          registers: [registry],
        }),
    ),
    givenUp: registeredMetric(
      registry,
      'mail_given_up_total',
      () =>
        new Counter({
          name: 'mail_given_up_total',
          help: 'Mails given up: refused for good by the server (reason=refused, a mistyped address says so), failed their last attempt (attempts), or not renderable',
          labelNames: ['template', 'reason'],
          registers: [registry],
        }),
    ),
  };
}
