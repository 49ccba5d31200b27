import { randomUUID } from 'node:crypto';
import { BusClient, BusServer, connectNats, createEventPublisher, IdentityTokens, natsAnswers } from '@pl/bus';
import type { RunningService } from '@pl/config';
import { DayPartitions, Db } from '@pl/db';
import {
  heleketPayoutCallbackUrl,
  heleketPayoutsIfConfigured,
  providerCircuits,
  providerMetrics,
  providersFrom,
  providersOf,
  type ProvidersSource,
} from '@pl/providers';
import { createLogger, createMetricsRegistry, scrapedGauge, startOpsServer, type Logger, type Registry } from '@pl/telemetry';
import { kafkaBrokers, type LinksConfig } from './config';
import { AttemptRepository } from './data/attempt.repository';
import { idempotencyPartitions, IdempotencyRepository } from './data/idempotency.repository';
import { UnresolvedPaymentRepository } from './data/unresolved-payment.repository';
import { registerUnresolvedHandlers } from './entry/nats/unresolved.handlers';
import { DailyReportRepository } from './data/daily-report.repository';
import { LedgerRepository } from './data/ledger.repository';
import { SummaryRepository } from './data/summary.repository';
import { LinkRepository } from './data/link.repository';
import { LINKS_SCHEMA } from './data/migrate';
import { outboxPartitions, OutboxRepository } from './data/outbox.repository';
import { PaymentHealthRepository } from './data/payment-health.repository';
import { PayoutRepository } from './data/payout.repository';
import { RefundRepository } from './data/refund.repository';
import { StatusSyncRepository } from './data/status-sync.repository';
import { ShopClient } from './data/shop.client';
import type { OutboxEntry } from './domain/link';
import { NO_CRASH_POINTS, type CrashPoints, type LinkDeps } from './domain/ports';
import { registerCheckoutHandlers } from './entry/nats/checkout.handlers';
import { registerLedgerHandlers } from './entry/nats/ledger.handlers';
import { registerReportHandlers, registerSummaryHandlers } from './entry/nats/report.handlers';
import { PARTITION_DAYS_AHEAD, partitionUpkeep } from './entry/background/partition-upkeep';
import { registerLinkHandlers } from './entry/nats/link.handlers';
import { registerPayoutHandlers } from './entry/nats/payout.handlers';
import { payoutScheduler, payoutSchedulerDeps } from './entry/background/payout-scheduler';
import { registerRefundHandlers } from './entry/nats/refund.handlers';
import { registerSyncHandlers } from './entry/nats/sync.handlers';
import { StatusSyncWorker } from './entry/background/status-sync-worker';
import { HeleketPayoutWorker } from './entry/background/heleket-payout-worker';
import { registerHeleketPayoutHandlers } from './entry/nats/heleket-payout.handlers';
import { HeleketPayoutRepository } from './data/heleket-payout.repository';
import type { HeleketPayoutDeps } from './domain/heleket-payout';
import { OutboxRelay } from './entry/outbox/outbox-relay';
import { ExpirySweeper } from './entry/sweeper/expiry-sweeper';
import { latePaymentAlarm } from './late-payment-alarm';
import { registerPaymentHealthGauges } from './payment-health-gauges';

/** kafkajs logs every failed connection attempt; the relay reports outages itself (once each), so it stays quiet unless debugging. */
const kafkaLog = (log: Logger, level: string): Logger =>
  log.child({ component: 'kafka' }, { level: level === 'debug' || level === 'trace' ? level : 'fatal' });

export function createOutboxRelay(config: LinksConfig, db: Db, log: Logger, crashPoints: CrashPoints = NO_CRASH_POINTS): OutboxRelay {
  return new OutboxRelay({
    outbox: new OutboxRepository(db),
    publisher: createEventPublisher({ brokers: kafkaBrokers(config), clientId: 'links-outbox', log: kafkaLog(log, config.LOG_LEVEL) }),
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    batchSize: config.OUTBOX_BATCH_SIZE,
    publishTimeoutMs: config.OUTBOX_PUBLISH_TIMEOUT_MS,
    maxBackoffMs: config.OUTBOX_MAX_BACKOFF_MS,
    log: log.child({ component: 'outbox-relay' }),
    crashPoints,
  });
}

/** Outbox backlog and the age of its oldest row, read with one indexed query per scrape. */
function registerOutboxGauges(metrics: Registry, outbox: OutboxRepository): void {
  let pending: Promise<{ rows: number; oldestAgeSeconds: number }> | undefined;
  // A scrape collects both gauges at once: they share one query.
  const backlog = () => (pending ??= outbox.backlog().finally(() => (pending = undefined)));
  scrapedGauge(metrics, {
    name: 'outbox_backlog_rows',
    help: 'Payment events written but not yet published to Kafka',
    read: async () => [{ value: (await backlog()).rows }],
  });
  scrapedGauge(metrics, {
    name: 'outbox_oldest_age_seconds',
    help: 'Age of the oldest unpublished payment event (0 when the outbox is empty)',
    read: async () => [{ value: (await backlog()).oldestAgeSeconds }],
  });
}

/**
 * Starts the links service: NATS handlers in queue group `links`, Postgres schema `links`, the outbox
 * relay to Kafka, the expiry sweeper, status sync and the ops server. Every replica runs the relay, the sweeper and
 * status sync.
 * `crashPoints` is the crash tests' hook (main.ts wires one only when their environment arms it).
 */
export async function startLinks(
  config: LinksConfig,
  log: Logger = createLogger('links', config.LOG_LEVEL),
  // Tests that need a provider the configuration cannot name (one that is down, say) pass the registry here.
  providerSource: ProvidersSource = (observer, circuitOf) => providersFrom(config, { publicBaseUrl: config.PUBLIC_BASE_URL, observer, circuitOf }),
  crashPoints: CrashPoints = NO_CRASH_POINTS,
): Promise<RunningService> {
  const metrics = createMetricsRegistry('links');
  const observer = providerMetrics(metrics, log.child({ component: 'providers' }));
  // One circuit per provider for the service: Heleket's payments and payouts reach one API host.
  const circuitOf = providerCircuits(config, observer);
  const providers = providersOf(providerSource, observer, circuitOf);
  const heleketPayouts = heleketPayoutsIfConfigured(config, circuitOf);
  const db = new Db({
    url: config.DATABASE_URL,
    schema: LINKS_SCHEMA,
    log,
    prepare: true,
    max: config.DATABASE_POOL_MAX,
    connectionWaitMs: config.DATABASE_POOL_WAIT_MS,
  });
  const nc = await connectNats(config.NATS_URL, 'links', log);
  const tokens = new IdentityTokens(config.IDENTITY_TOKEN_SECRET);
  const bus = new BusClient(nc, config.BUS_NAMESPACE, tokens, config.NATS_REQUEST_TIMEOUT_MS, { metrics });
  const server = new BusServer(nc, config.BUS_NAMESPACE, tokens, 'links', log, { metrics });
  registerOutboxGauges(metrics, new OutboxRepository(db));
  registerPaymentHealthGauges(metrics, new PaymentHealthRepository(db));
  const relay = createOutboxRelay(config, db, log, crashPoints);
  const handOver = (entry: OutboxEntry): void => relay.handOver(entry);
  const links = new LinkRepository(db, handOver, config.PAYMENT_EVENTS_TOPIC, metrics);
  const idempotency = new IdempotencyRepository(db, handOver, config.PAYMENT_EVENTS_TOPIC);

  const unresolved = new UnresolvedPaymentRepository(db, latePaymentAlarm(metrics, log.child({ component: 'late-payments' })), handOver);
  const deps: LinkDeps = {
    links,
    unresolvedPayments: unresolved,
    idempotency,
    shops: new ShopClient(bus),
    now: () => new Date(),
    newId: randomUUID,
    providers,
    providerTimeoutMs: config.PROVIDER_REQUEST_TIMEOUT_MS,
    attempts: new AttemptRepository(db),
    warn: (fields, message) => log.warn(fields, message),
    eventsTopic: config.PAYMENT_EVENTS_TOPIC,
    crashPoints,
  };
  registerLinkHandlers(server, deps, config.PUBLIC_BASE_URL);
  registerCheckoutHandlers(server, deps, config.PUBLIC_BASE_URL);
  const refunds = new RefundRepository(db, handOver, config.PAYMENT_EVENTS_TOPIC);
  const refundDeps = { ...deps, refunds };
  registerRefundHandlers(server, refundDeps);
  registerUnresolvedHandlers(server, { ...refundDeps, unresolvedPayments: unresolved, unresolvedList: unresolved });
  const syncDeps = { ...refundDeps, sync: new StatusSyncRepository(db) };
  registerSyncHandlers(server, syncDeps);
  registerReportHandlers(server, { reports: new DailyReportRepository(db), shops: deps.shops, now: deps.now });
  registerLedgerHandlers(server, { ledger: new LedgerRepository(db, config.PAYOUT_HOLD_HOURS), shops: deps.shops });
  const payoutStore = new PayoutRepository(db, handOver, config.PAYMENT_EVENTS_TOPIC);
  registerPayoutHandlers(server, {
    payouts: payoutStore,
    shops: deps.shops,
    ledger: new LedgerRepository(db, config.PAYOUT_HOLD_HOURS),
    now: deps.now,
    newId: randomUUID,
    eventsTopic: config.PAYMENT_EVENTS_TOPIC,
    settings: {
      holdHours: config.PAYOUT_HOLD_HOURS,
      maxKopecks: config.PAYOUT_MAX,
      dailyMaxKopecks: config.PAYOUT_DAILY_MAX,
      approvalThresholdKopecks: config.PAYOUT_APPROVAL_THRESHOLD,
      feeKopecks: config.PAYOUT_FEE,
    },
  });
  registerSummaryHandlers(server, { summaries: new SummaryRepository(db), shops: deps.shops, now: deps.now });
  const heleketRail: HeleketPayoutDeps | null =
    heleketPayouts === null
      ? null
      : {
          payouts: payoutStore,
          newId: randomUUID,
          eventsTopic: config.PAYMENT_EVENTS_TOPIC,
          heleket: heleketPayouts,
          rail: new HeleketPayoutRepository(db),
          callbackUrl: heleketPayoutCallbackUrl(config.PUBLIC_BASE_URL),
          providerTimeoutMs: config.PROVIDER_REQUEST_TIMEOUT_MS,
          now: deps.now,
          crashPoints,
        };
  if (heleketRail) registerHeleketPayoutHandlers(server, heleketRail);
  else log.info('no Heleket payout credentials (HELEKET_MERCHANT_ID, HELEKET_PAYOUT_KEY): live crypto payouts wait approved');
  await nc.flush();

  const sweeper = new ExpirySweeper({
    links,
    intervalMs: config.EXPIRY_SWEEP_INTERVAL_MS,
    batchSize: config.EXPIRY_SWEEP_BATCH_SIZE,
    log: log.child({ component: 'expiry-sweeper' }),
  });
  const partitions = partitionUpkeep(
    new DayPartitions(db, [outboxPartitions(config.OUTBOX_RETENTION_DAYS), idempotencyPartitions], PARTITION_DAYS_AHEAD),
    log.child({ component: 'partition-upkeep' }),
  );
  const scheduler = payoutScheduler(
    payoutSchedulerDeps(config, db, bus, log.child({ component: 'payout-scheduler' }), handOver, randomUUID),
    config.PAYOUT_SCHEDULE_INTERVAL_MS,
    log.child({ component: 'payout-scheduler' }),
  );
  const statusSync = new StatusSyncWorker({
    deps: syncDeps,
    payouts: heleketRail,
    schedule: { firstDelayMs: config.PROVIDER_SYNC_FIRST_DELAY_MS, intervalMs: config.PROVIDER_SYNC_INTERVAL_MS },
    batchSize: 100,
    log: log.child({ component: 'status-sync' }),
  });
  const payoutWorker =
    heleketRail === null
      ? null
      : new HeleketPayoutWorker({
          deps: heleketRail,
          intervalMs: config.PAYOUT_WORKER_INTERVAL_MS,
          batchSize: 100,
          log: log.child({ component: 'heleket-payouts' }),
        });
  relay.start();
  sweeper.start();
  statusSync.start();
  payoutWorker?.start();
  partitions.start();
  scheduler.start();

  const ops = await startOpsServer({
    port: config.OPS_PORT,
    // Its work arrives over NATS and lives in Postgres: ready when both answer (a reconnecting client is not closed, yet serves nothing).
    ready: async () => (await natsAnswers(nc)) && (await db.ping()),
    metrics,
  });
  log.info({ ops_port: ops.port, namespace: config.BUS_NAMESPACE }, 'links service started');

  return {
    opsPort: ops.port,
    async stop() {
      await server.drain();
      // After the handlers: a payment committed by the last request still gets its publish attempt.
      await Promise.all([relay.stop(), sweeper.stop(), partitions.stop(), statusSync.stop(), scheduler.stop(), payoutWorker?.stop()]);
      await nc.close();
      await Promise.all([ops.close(), db.close()]);
      log.info('links service stopped');
    },
  };
}
