import { PAYMENT_EVENTS_TOPIC } from '@pl/contracts';
import { commonEnv, intSetting, kafkaTopic, parseConfig, port, publicBaseUrl, roublesSetting } from '@pl/config';
import { z } from 'zod';
import { providerEnv } from '@pl/providers';

/** Hours, 0 or more (a year at most), decimals allowed so a test can wait seconds rather than a day. */
function hoursSetting(fallback: number) {
  return z.coerce.number().min(0).max(8760).default(fallback);
}

const linksEnv = {
  ...commonEnv,
  OPS_PORT: port(9101),
  /** Base of the buyer-facing checkout URL; kept without a trailing slash. */
  PUBLIC_BASE_URL: publicBaseUrl,
  ...providerEnv,
  /** How often the sweeper expires due links, and how many one statement moves. */
  /** How long a request waits for a free database connection before its 503 (DbOptions.connectionWaitMs). */
  DATABASE_POOL_WAIT_MS: intSetting({ min: 100, max: 60_000, default: 2000 }),
  EXPIRY_SWEEP_INTERVAL_MS: intSetting({ min: 10, max: 3_600_000, default: 5000 }),
  EXPIRY_SWEEP_BATCH_SIZE: intSetting({ min: 1, max: 10_000, default: 1000 }),
  /** The relay's poll for events nobody published; also the first backoff step while Kafka is down. */
  OUTBOX_POLL_INTERVAL_MS: intSetting({ min: 10, max: 600_000, default: 1000 }),
  OUTBOX_BATCH_SIZE: intSetting({ min: 1, max: 1000, default: 100 }),
  /** Longest wait for Kafka's acknowledgement; the poll leaves events younger than this to their writer. */
  OUTBOX_PUBLISH_TIMEOUT_MS: intSetting({ min: 100, max: 300_000, default: 15_000 }),
  OUTBOX_MAX_BACKOFF_MS: intSetting({ min: 10, max: 600_000, default: 30_000 }),
  /** Days the outbox keeps the record of a published event (support, a republish by hand); then its day's partition goes. */
  OUTBOX_RETENTION_DAYS: intSetting({ min: 1, max: 3650, default: 7 }),
  /**
   * Status sync (docs/providers.md): an unfinished attempt or a pending refund at a real provider is read this long
   * after it was made, then every interval, until final or 72 hours past its link's expiry.
   */
  PROVIDER_SYNC_FIRST_DELAY_MS: intSetting({ min: 10, max: 86_400_000, default: 60_000 }),
  PROVIDER_SYNC_INTERVAL_MS: intSetting({ min: 10, max: 86_400_000, default: 300_000 }),
  /**
   * Payouts (docs/payouts.md). A credit becomes `available` this many hours after it was posted (0: at once; decimals
   * allowed). Amounts are roubles with up to two decimals, as the API writes them.
   */
  PAYOUT_HOLD_HOURS: hoursSetting(24),
  PAYOUT_MAX: roublesSetting('1000000.00'),
  PAYOUT_DAILY_MAX: roublesSetting('5000000.00'),
  PAYOUT_APPROVAL_THRESHOLD: roublesSetting('100000.00'),
  PAYOUT_FEE: roublesSetting('0.00'),
  /** How often each replica looks for a scheduled payout's period nobody has decided (docs/adr/0046). */
  PAYOUT_SCHEDULE_INTERVAL_MS: intSetting({ min: 10, max: 3_600_000, default: 60_000 }),
  /** How often approved live crypto payouts are looked for and handed to Heleket (ADR 0044). */
  PAYOUT_WORKER_INTERVAL_MS: intSetting({ min: 10, max: 3_600_000, default: 5000 }),
  /** Kafka topic of payment events; tests give each system its own. */
  PAYMENT_EVENTS_TOPIC: kafkaTopic(PAYMENT_EVENTS_TOPIC),
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  return parseConfig(linksEnv, env);
}

export type LinksConfig = ReturnType<typeof loadConfig>;

/** KAFKA_BROKERS as a list. */
export const kafkaBrokers = (config: LinksConfig): string[] =>
  config.KAFKA_BROKERS.split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
