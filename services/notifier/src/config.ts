import { z } from 'zod';
import { commonEnv, flag, intSetting, kafkaTopic, parseConfig, port } from '@pl/config';
import { EVENT_RETENTION_DAYS, PAYMENT_EVENTS_TOPIC } from '@pl/contracts';

/** Delays before attempts 2..8 (the first attempt goes out at once): 10 s, 1 min, 10 min, 1 h, 6 h, 24 h, 40 h. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS = [10_000, 60_000, 600_000, 3_600_000, 21_600_000, 86_400_000, 144_000_000];

export const WEBHOOK_ATTEMPTS = 8;

const retryDelays = z
  .string()
  .default(DEFAULT_WEBHOOK_RETRY_DELAYS_MS.join(','))
  .transform((raw, ctx) => {
    const parts = raw.split(',').map((p) => p.trim());
    const delays = parts.map(Number);
    if (parts.length !== WEBHOOK_ATTEMPTS - 1 || parts.some((p) => !/^\d+$/.test(p)) || delays.some((d) => !Number.isSafeInteger(d))) {
      ctx.addIssue({ code: 'custom', message: `must be ${WEBHOOK_ATTEMPTS - 1} comma-separated non-negative integers (milliseconds)` });
      return z.NEVER;
    }
    return delays;
  });

const notifierEnv = {
  ...commonEnv,
  OPS_PORT: port(9103),
  KAFKA_GROUP_ID: z.string().min(1).max(200).default('notifier'),
  PAYMENT_EVENTS_TOPIC: kafkaTopic(PAYMENT_EVENTS_TOPIC),
  /** How long the group waits for a silent member; a restarted notifier waits out its old self this long. */
  KAFKA_SESSION_TIMEOUT_MS: intSetting({ min: 6000, max: 300_000, default: 10_000 }),
  /**
   * Longest a fetch waits for new events. A broker answers as soon as an event arrives, so this only sets
   * how often an idle consumer asks; the librdkafka mock (local runs, tests, the bench) holds every empty
   * fetch for the whole wait, so there it adds up to this much to an event's latency.
   */
  KAFKA_FETCH_MAX_WAIT_MS: intSetting({ min: 1, max: 10_000, default: 10 }),
  WEBHOOK_RETRY_DELAYS_MS: retryDelays,
  /** Per-attempt time-out of a webhook request. */
  WEBHOOK_TIMEOUT_MS: intSetting({ min: 100, max: 120_000, default: 10_000 }),
  /** The least wait after a time-out or a 429: a struggling receiver gets room to recover. */
  WEBHOOK_MIN_DELAY_AFTER_THROTTLE_MS: intSetting({ min: 0, max: 3_600_000, default: 60_000 }),
  /** Local runs and tests deliver to 127.0.0.1; deployments refuse private, loopback and link-local targets. */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag,
  /**
   * Attempts in flight in one notifier process, and to one endpoint (URL), so a slow receiver never blocks
   * others. Receivers that take 1 s each need 500 in flight for 500 deliveries/s; 1000 leaves room for
   * time-outs. 20 per endpoint is what one modest merchant server is asked to serve at once, 2 % of the
   * process, and 50 endpoints at 20 fill it (docs/design-decisions.md, "Webhook concurrency").
   */
  WEBHOOK_CONCURRENCY: intSetting({ min: 1, max: 10_000, default: 1000 }),
  WEBHOOK_PER_ENDPOINT_CONCURRENCY: intSetting({ min: 1, max: 1000, default: 20 }),
  /** Fallback poll for due deliveries (other replicas' work, expired leases); new events wake the worker at once. */
  WEBHOOK_POLL_INTERVAL_MS: intSetting({ min: 10, max: 60_000, default: 500 }),
  /**
   * How long a claimed delivery stays with its worker; a crashed worker's claims are resumed by another
   * after this. Must outlast an attempt (the target look-up plus the request time-out).
   */
  WEBHOOK_LEASE_MS: intSetting({ min: 1000, max: 3_600_000, default: 60_000 }),
  /**
   * How long the events API keeps an event (docs/webhooks.md, "Event types": 30 days): a day's partition is dropped
   * once its end is this old.
   */
  EVENT_RETENTION_DAYS: intSetting({ min: 1, max: 3650, default: EVENT_RETENTION_DAYS }),
  /**
   * How long the delivery log keeps a delivery and its attempts (docs/webhooks.md): a month's partition is dropped
   * once its end is this old, so a delivery stays between this long and a month more.
   */
  DELIVERY_RETENTION_DAYS: intSetting({ min: 7, max: 3650, default: 90 }),
  /**
   * Between purges of events that arrived with no partition for their day (older than the oldest kept); such an
   * event lives its retention plus at most this long.
   */
  EVENT_PURGE_INTERVAL_MS: intSetting({ min: 1000, max: 86_400_000, default: 600_000 }),
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = parseConfig(notifierEnv, env);
  if (config.WEBHOOK_LEASE_MS < config.WEBHOOK_TIMEOUT_MS + config.NATS_REQUEST_TIMEOUT_MS) {
    throw new Error('Invalid configuration: WEBHOOK_LEASE_MS must be at least WEBHOOK_TIMEOUT_MS + NATS_REQUEST_TIMEOUT_MS');
  }
  return config;
}

export type NotifierConfig = ReturnType<typeof loadConfig>;
