import { BusClient, BusServer, IdentityTokens, connectNats, createEventSubscriber, natsAnswers } from '@pl/bus';
import type { RunningService } from '@pl/config';
import { mode } from '@pl/contracts';
import { DayPartitions, Db } from '@pl/db';
import { createLogger, createMetricsRegistry, scrapedGauge, startOpsServer, type Logger } from '@pl/telemetry';
import type { NotifierConfig } from './config';
import { instrumentDeliveries } from './data/delivery-metrics';
import { deliveryPartitions, DeliveryRepository } from './data/delivery.repository';
import { eventPartitions, EventRepository } from './data/event.repository';
import { NOTIFIER_SCHEMA } from './data/migrate';
import { ShopDirectoryClient } from './data/shop-directory.client';
import { HttpWebhookSender } from './data/webhook-http.sender';
import { WebhookTargetClient } from './data/webhook-target.client';
import { DeliveryWorker } from './domain/delivery-worker';
import { NO_CRASH_POINTS, type CrashPoints } from './domain/ports';
import { EventPurge } from './entry/background/event-purge';
import { PARTITION_DAYS_AHEAD, PartitionUpkeep } from './entry/background/partition-upkeep';
import { consumePaymentEvents } from './entry/kafka/payment-events.consumer';
import { registerDeliveryHandlers } from './entry/nats/delivery.handlers';
import { registerEventHandlers } from './entry/nats/event.handlers';

/** Past the attempt time-out, so an attempt in flight at stop is finished and recorded. */
const STOP_GRACE_EXTRA_MS = 2000;
const LOOKUP_RETRY_MS = 2000;
/** Partitions of the payment-events topic handled at once by one notifier (more than it is ever assigned is harmless). */
const PARTITIONS_AT_ONCE = 16;

/**
 * Starts the notifier: the Kafka consumer of payment events, the webhook delivery worker, the delivery
 * log and the events API on NATS (queue group `notifier`), the partition upkeep and purge of expired events, and the ops server.
 * `crashPoints` is the crash tests' hook (main.ts wires one only when their environment arms it).
 */
export async function startNotifier(
  config: NotifierConfig,
  log: Logger = createLogger('notifier', config.LOG_LEVEL),
  crashPoints: CrashPoints = NO_CRASH_POINTS,
): Promise<RunningService> {
  const metrics = createMetricsRegistry('notifier');
  const db = new Db({ url: config.DATABASE_URL, schema: NOTIFIER_SCHEMA, log, prepare: true, max: config.DATABASE_POOL_MAX });
  const nc = await connectNats(config.NATS_URL, 'notifier', log);
  const tokens = new IdentityTokens(config.IDENTITY_TOKEN_SECRET);
  const bus = new BusClient(nc, config.BUS_NAMESPACE, tokens, config.NATS_REQUEST_TIMEOUT_MS, { metrics });
  const deliveries = new DeliveryRepository(db);
  const events = new EventRepository(db);
  scrapedGauge(metrics, {
    name: 'webhook_queue_depth',
    help: 'Pending webhook deliveries: due (waiting for a free worker slot) and scheduled (waiting for a retry time), by mode',
    labelNames: ['state', 'mode'],
    read: async () => {
      const depth = await deliveries.queueDepth();
      // Both modes always, so a query of one finds a series (0) even while it has nothing pending.
      return mode.options.flatMap((m) => [
        { labels: { state: 'due', mode: m }, value: depth[m].due },
        { labels: { state: 'scheduled', mode: m }, value: depth[m].scheduled },
      ]);
    },
  });

  const sender = new HttpWebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, metrics });
  // One set of copies of the shops' webhook targets: the worker sends with them, the intake reads subscriptions.
  const targets = new WebhookTargetClient(bus);
  const worker = new DeliveryWorker(
    instrumentDeliveries(deliveries, db, metrics),
    targets,
    sender,
    {
      policy: { delaysMs: config.WEBHOOK_RETRY_DELAYS_MS, minDelayAfterThrottleMs: config.WEBHOOK_MIN_DELAY_AFTER_THROTTLE_MS },
      concurrency: config.WEBHOOK_CONCURRENCY,
      perEndpointConcurrency: config.WEBHOOK_PER_ENDPOINT_CONCURRENCY,
      pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      leaseMs: config.WEBHOOK_LEASE_MS,
      lookupRetryMs: LOOKUP_RETRY_MS,
    },
    log,
    Math.random,
    crashPoints,
  );

  const server = new BusServer(nc, config.BUS_NAMESPACE, tokens, 'notifier', log, { metrics });
  const shopDirectory = new ShopDirectoryClient(bus);
  registerDeliveryHandlers(server, deliveries, shopDirectory, () => worker.wake());
  registerEventHandlers(server, events, shopDirectory);
  // Events leave by days, deliveries and attempts by months (ADR 22); every replica keeps them, hourly.
  const partitions = new PartitionUpkeep(
    new DayPartitions(
      db,
      [eventPartitions(config.EVENT_RETENTION_DAYS), ...deliveryPartitions(config.DELIVERY_RETENTION_DAYS)],
      PARTITION_DAYS_AHEAD,
    ),
    log.child({ component: 'partition-upkeep' }),
  );
  // The DEFAULT partition's stragglers: batches of 1000 events a statement, every 10 minutes by default.
  const purge = new EventPurge({
    events,
    retentionDays: config.EVENT_RETENTION_DAYS,
    intervalMs: config.EVENT_PURGE_INTERVAL_MS,
    batchSize: 1000,
    log: log.child({ component: 'event-purge' }),
  });

  const subscriber = createEventSubscriber({
    brokers: config.KAFKA_BROKERS.split(','),
    clientId: 'notifier',
    log,
    groupId: config.KAFKA_GROUP_ID,
    topic: config.PAYMENT_EVENTS_TOPIC,
    sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    maxWaitTimeMs: config.KAFKA_FETCH_MAX_WAIT_MS,
    // The slices of one fetch are stored by one statement (DeliveryRepository.storeAll), so partitions
    // handled side by side cost one round trip, not one each.
    partitionsAtOnce: PARTITIONS_AT_ONCE,
    metrics,
  });

  worker.start();
  purge.start();
  partitions.start();
  consumePaymentEvents(subscriber, deliveries, targets, worker, () => worker.wake(), log);

  const ops = await startOpsServer({
    port: config.OPS_PORT,
    // Not Kafka: a notifier without Kafka still sends the deliveries it holds and serves the delivery log.
    ready: async () => (await natsAnswers(nc)) && (await db.ping()),
    metrics,
  });
  log.info({ ops_port: ops.port, namespace: config.BUS_NAMESPACE, topic: config.PAYMENT_EVENTS_TOPIC }, 'notifier service started');

  return {
    opsPort: ops.port,
    async stop() {
      // Consuming stops first (offsets of stored events are committed); then attempts in flight finish.
      await subscriber.close();
      await purge.stop();
      await partitions.stop();
      await worker.stop(config.WEBHOOK_TIMEOUT_MS + STOP_GRACE_EXTRA_MS);
      sender.close();
      await server.drain();
      await ops.close();
      await nc.drain().catch(() => undefined);
      await db.close();
      log.info('notifier service stopped');
    },
  };
}
