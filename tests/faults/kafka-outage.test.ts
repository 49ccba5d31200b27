import { eventually, withDeadline } from '@pl/testing';
import { KafkaMockCluster } from '../support/kafka-mock';
import { scrapedSum } from '../support/metrics';
import { recoveryBounds } from '../support/recovery-bounds';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * Every Kafka broker goes away while the platform runs (a mock cluster of this file's own, so the shared
 * one stays up for every other test file), and comes back. Payments must go on committing; their events
 * wait in the links outbox; once the brokers are back each paid link's webhook goes out, exactly once.
 * Nobody restarts the services.
 */

// Set below, once the bounds of its waits are known.

const BROKERS = 3;
/** Paid right after the brokers went down, and just before they come back. */
const PAID_EARLY = 3;
const PAID_LATE = 2;
/**
 * Past the point where the notifier's consumer exhausts its kafkajs retries and crashes (here about 10 s
 * and again 20 s into the outage), so it must restart by itself, and past its session timeout
 * (startSystem's 6 s), so it rejoins its group as a new member. A short outage proves much less: the
 * clients simply ride it out.
 */
const OUTAGE_MS = 25_000;
/** How often the outage is sampled for the relay's attempts and the receiver; readiness every tenth time. */
const SAMPLE_MS = 100;
const PUBLISH_TIMEOUT_MS = 1000;
const MAX_BACKOFF_MS = 1000;
/** Once its backoff is capped, the relay attempts at least this often: one publish time-out plus the cap. */
const RETRY_CYCLE_MS = PUBLISH_TIMEOUT_MS + MAX_BACKOFF_MS;
/** Short relay steps, so the recovery takes seconds, not the production half-minute. */
const RELAY_ENV = {
  OUTBOX_POLL_INTERVAL_MS: '100',
  OUTBOX_MAX_BACKOFF_MS: String(MAX_BACKOFF_MS),
  OUTBOX_PUBLISH_TIMEOUT_MS: String(PUBLISH_TIMEOUT_MS),
};
const BOUNDS = recoveryBounds(RELAY_ENV);
/**
 * From brokers up to every held webhook received: the relay's next attempt (a retry cycle) and its publish, and the
 * consumer's restart and rejoin of its group (its session and the rebalance), from the configured time-outs.
 */
const RECOVERY_BOUND_MS = RETRY_CYCLE_MS + BOUNDS.relayTakeoverMs + BOUNDS.groupJoinMs;
/** A webhook of a running system: the notifier may still be joining its group. */
const WEBHOOK_BOUND_MS = BOUNDS.groupJoinMs + BOUNDS.relayTakeoverMs;

jest.setTimeout(OUTAGE_MS + 2 * WEBHOOK_BOUND_MS + RECOVERY_BOUND_MS + BOUNDS.stepMs);

let kafka: KafkaMockCluster;
let receiver: WebhookReceiver;
let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
beforeAll(async () => {
  kafka = await KafkaMockCluster.start({ brokers: BROKERS });
  receiver = await WebhookReceiver.start();
  sys = await startSystem({ env: { KAFKA_BROKERS: kafka.bootstrapServers, ...RELAY_ENV } });
  ({ merchant, shop } = await sys.merchantWithShop({ webhookUrl: receiver.url }));
}, 60_000);
afterAll(async () => {
  await sys?.stop();
  await receiver?.close();
  await kafka?.stop();
}, 60_000);

/** Polls until `done()`; the relay and the consumer recover by themselves, nothing outside can await them. */
async function payNewLink(): Promise<string> {
  const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '250.00' }, { headers: merchant.keys });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
  return id;
}

const linkStatus = async (id: string): Promise<string> =>
  (await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys })).body.status as string;

const unpublished = async (linkIds: string[]): Promise<number> =>
  Number(
    (
      await sys.sql<{ n: string }>('SELECT count(*) AS n FROM links.outbox o JOIN links.outbox_pending p USING (id) WHERE o.message_key = ANY($1)', [
        linkIds,
      ])
    )[0]?.n,
  );

/**
 * The start times of the relay's open claim transactions: it holds its batch locked (idle in transaction)
 * while the publish is in flight. Two different ones mean an attempt failed and the relay tried again.
 */
const relayClaimStarts = async (): Promise<string[]> =>
  (
    await sys.sql<{ started: string }>(
      `SELECT xact_start::text AS started FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'idle in transaction' AND query LIKE '%FROM outbox%FOR UPDATE SKIP LOCKED%'`,
    )
  ).map((r) => r.started);

const readyz = async (port: number): Promise<number> => (await fetch(`http://127.0.0.1:${port}/readyz`)).status;

it('keeps committing payments while every broker is down, holds their events in the outbox, then delivers each webhook exactly once', async () => {
  // Before the outage: the relay's producer is connected and the notifier's consumer is in its group.
  const before = await payNewLink();
  await withDeadline(receiver.nthFor(before, 1), WEBHOOK_BOUND_MS, 'the webhook of a payment before the outage');

  await kafka.down('all');
  const downAt = Date.now();
  const paid: string[] = [];
  for (let i = 0; i < PAID_EARLY; i++) paid.push(await payNewLink());

  // Sampled all along: the relay keeps trying (each claim of the batch is one attempt), nothing is
  // delivered, and Kafka is none of the gateway's or the notifier's readiness.
  const claims = new Set<string>();
  let samples = 0;
  await eventually(
    async () => {
      for (const s of await relayClaimStarts()) claims.add(s);
      for (const id of paid) expect(receiver.hitsFor(id)).toHaveLength(0);
      if (samples % 10 === 0) {
        expect(await readyz(sys.gatewayOpsPort)).toBe(200);
        expect(await readyz(sys.notifierOpsPort)).toBe(200);
      }
      samples += 1;
      return Date.now() - downAt >= OUTAGE_MS && claims.size >= 2;
    },
    'the outage ran its course with the relay retrying',
    OUTAGE_MS + BOUNDS.stepMs,
    SAMPLE_MS,
  );
  for (let i = 0; i < PAID_LATE; i++) paid.push(await payNewLink());
  for (const id of paid) expect(await linkStatus(id)).toBe('paid');
  expect(await unpublished(paid)).toBe(paid.length);
  for (const id of paid) expect(receiver.hitsFor(id)).toHaveLength(0);

  await kafka.up('all');
  const upAt = Date.now();
  // The relay's retries stay bounded all through the outage, up to its end. Twice the cycle: an attempt
  // cut short by a failure may fall between two samples.
  const starts = [...claims].map((c) => Date.parse(c)).sort((x, y) => x - y);
  const gaps = [...starts.slice(1).map((t, i) => t - (starts[i] ?? t)), upAt - (starts.at(-1) ?? downAt)];
  console.log(`kafka outage: gaps between relay attempts ${gaps.join(', ')} ms (${samples} samples)`);
  expect(Math.max(...gaps)).toBeLessThan(2 * RETRY_CYCLE_MS + 1000);
  const held = await withDeadline(
    Promise.all(paid.map((id) => receiver.nthFor(id, 1))),
    RECOVERY_BOUND_MS,
    'every held webhook after the brokers came back',
  );
  const deliveredAfterMs = Date.now() - upAt;
  await eventually(async () => (await unpublished(paid)) === 0, 'the outbox marked every held event published', 10_000);

  // A payment after the outage flows end to end: the consumer is back in its group, not only draining.
  const after = await payNewLink();
  await withDeadline(receiver.nthFor(after, 1), WEBHOOK_BOUND_MS, 'the webhook of a payment after the outage');

  // Exactly once, per link and per webhook id, on both sides: the receiver's and the notifier's records.
  const all = [before, ...paid, after];
  for (const id of all) expect(receiver.hitsFor(id)).toHaveLength(1);
  expect(receiver.hits).toHaveLength(all.length);
  const webhookIds = all.map((id) => String(receiver.hitsFor(id)[0]?.headers['x-webhook-id']));
  expect(new Set(webhookIds).size).toBe(all.length);
  for (const hit of held) expect(hit.json.event).toBe('payment.succeeded');
  const recorded = () =>
    sys.sql<{ payment_link_id: string; webhook_id: string; status: string; attempts: string }>(
      `SELECT d.payment_link_id::text, d.webhook_id, d.status,
              (SELECT count(*) FROM notifier.delivery_attempts a WHERE a.delivery_id = d.id) AS attempts
         FROM notifier.deliveries d WHERE d.payment_link_id = ANY($1)`,
      [all],
    );
  // The notifier records an attempt after the receiver has answered it.
  await eventually(
    async () => (await recorded()).every((d) => d.status === 'succeeded'),
    'the notifier recorded every delivery as succeeded',
    10_000,
  );
  const deliveries = await recorded();
  expect(deliveries.map((d) => d.payment_link_id).sort()).toEqual([...all].sort());
  for (const d of deliveries) {
    expect(Number(d.attempts)).toBe(1);
    expect(webhookIds).toContain(d.webhook_id);
  }

  expect(await readyz(sys.gatewayOpsPort)).toBe(200);
  expect(await readyz(sys.notifierOpsPort)).toBe(200);
  // More than the events when an abandoned publish of the outage went out after all: the copies were dropped.
  // Payment events the notifier's consumer has handled, redelivered copies included.
  const consumed = await scrapedSum(sys.notifierOpsPort, 'kafka_consumer_messages_total', { outcome: 'ok' });
  expect(consumed).toBeGreaterThanOrEqual(all.length);
  console.log(
    `kafka outage: ${paid.length} payments held for ${upAt - downAt} ms (${claims.size} relay attempts seen); ` +
      `all delivered ${deliveredAfterMs} ms after the brokers came back; ${consumed} messages consumed for ${all.length} events`,
  );
});
