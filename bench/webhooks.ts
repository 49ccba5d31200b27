/**
 * `npm run bench:webhooks`: figures for the payment → webhook path, printed, not asserted.
 *
 * 1. Latency: 1,000 links are confirmed through the sandbox provider callback route; for each, the time
 *    from the callback's 200 to the merchant's receiver getting the webhook (p50 / p90 / p99 / max).
 * 2. Throughput against slow merchants: receivers that take 1 s per request; deliveries per second for
 *    one endpoint (bounded by the per-endpoint concurrency) and for many endpoints (the process-wide bound).
 *
 * The whole platform runs in this process (tests/support/system.ts) against the local Postgres, Redis,
 * NATS and Kafka (KAFKA_BROKERS, else the project's Kafka mock is started and stopped again).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestSystem } from '../tests/support/system';

const ROOT = join(__dirname, '..');
const LATENCY_LINKS = 1000;
const SLOW_RECEIVER_MS = 1000;
const ONE_ENDPOINT_DELIVERIES = 100;
const MANY_ENDPOINTS = 20;
const MANY_ENDPOINT_DELIVERIES = 1000;
const IN_FLIGHT = 50;

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

/** Runs `task` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: readonly T[], limit: number, task: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
const ms = (n: number): string => `${n.toFixed(1)} ms`;

/** KAFKA_BROKERS from the environment, else the project's own Kafka mock (started here, stopped at the end). */
function ensureKafka(): { stop: () => void } {
  if (process.env.KAFKA_BROKERS) return { stop: () => undefined };
  const exports = execFileSync('bash', [join(ROOT, 'scripts', 'local-deps.sh')], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  let started = false;
  for (const m of exports.matchAll(/^export (KAFKA_BROKERS|KAFKA_MOCK_PID)='([^']*)'$/gm)) {
    if (m[1] === 'KAFKA_BROKERS') process.env.KAFKA_BROKERS = m[2];
    if (m[1] === 'KAFKA_MOCK_PID') started = true;
  }
  return { stop: () => (started ? void execFileSync('bash', [join(ROOT, 'scripts', 'local-deps.sh'), 'stop'], { cwd: ROOT, stdio: 'ignore' }) : undefined) };
}

async function createLinks(sys: TestSystem, merchant: TestMerchant, shopIds: readonly number[], count: number): Promise<string[]> {
  return pool(Array.from({ length: count }, (_, i) => shopIds[i % shopIds.length] as number), IN_FLIGHT, async (shopId) => {
    const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: shopId, amount: '100.00' }, { headers: merchant.keys });
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
    return res.body.id as string;
  });
}

/** Confirms every link through the callback route; returns when each callback was accepted (performance.now()). */
async function confirm(sys: TestSystem, ids: readonly string[]): Promise<Map<string, number>> {
  const accepted = new Map<string, number>();
  await pool(ids, IN_FLIGHT, async (id) => {
    const res = await sys.providerCallback(sandboxPaymentId(id), 'paid');
    if (res.status !== 200) throw new Error(`callback failed: ${res.status} ${res.text}`);
    accepted.set(id, performance.now());
  });
  return accepted;
}

/** Resolves once `receiver` has seen a first request for every link. */
const allDelivered = (receiver: WebhookReceiver, ids: readonly string[]): Promise<unknown> =>
  Promise.all(ids.map((id) => receiver.waitFor((h) => h.json?.data?.payment_link_id === id)));

async function latency(sys: TestSystem, merchant: TestMerchant): Promise<void> {
  const receiver = await WebhookReceiver.start();
  try {
    const shop = await sys.shop(merchant.id, { webhookUrl: receiver.url, webhookSecret: 'bench-webhook-secret' });
    // Warm-up: the consumer group joins and the topic exists before anything is timed.
    const [warm] = await createLinks(sys, merchant, [shop.id], 1);
    await confirm(sys, [warm as string]);
    await allDelivered(receiver, [warm as string]);

    const ids = await createLinks(sys, merchant, [shop.id], LATENCY_LINKS);
    const started = performance.now();
    const accepted = await confirm(sys, ids);
    const callbacksDone = performance.now();
    await allDelivered(receiver, ids);
    const finished = performance.now();

    const latencies = ids
      .map((id) => receiver.hitsFor(id)[0]!.at - accepted.get(id)!)
      .sort((a, b) => a - b);
    const repeats = ids.filter((id) => receiver.hitsFor(id).length !== 1).length;
    out(`Latency: ${LATENCY_LINKS} links confirmed through POST /callbacks/v1/sandbox (${IN_FLIGHT} callbacks in flight)`);
    out(`  callbacks: ${((LATENCY_LINKS / (callbacksDone - started)) * 1000).toFixed(0)}/s accepted (${ms(callbacksDone - started)} for all)`);
    out(`  callback accepted -> webhook received: p50 ${ms(percentile(latencies, 50))}, p90 ${ms(percentile(latencies, 90))}, ` +
      `p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies[latencies.length - 1]!)}, min ${ms(latencies[0]!)}`);
    out(`  all ${LATENCY_LINKS} webhooks received ${ms(finished - started)} after the first callback; links with other than exactly one webhook: ${repeats}`);
  } finally {
    await receiver.close();
  }
}

async function throughput(sys: TestSystem, merchant: TestMerchant, endpoints: number, deliveries: number): Promise<void> {
  const receiver = await WebhookReceiver.start({ delayMs: SLOW_RECEIVER_MS });
  try {
    const shops = await Promise.all(
      Array.from({ length: endpoints }, (_, i) => sys.shop(merchant.id, { webhookUrl: `${receiver.url}/${i}` })),
    );
    const ids = await createLinks(sys, merchant, shops.map((s) => s.id), deliveries);
    await confirm(sys, ids);
    await allDelivered(receiver, ids);
    const arrivals = receiver.hits.map((h) => h.at).sort((a, b) => a - b);
    // From the first request arriving to the last one answered: the span the receiver was busy.
    const span = arrivals[arrivals.length - 1]! + SLOW_RECEIVER_MS - arrivals[0]!;
    out(`Throughput: ${deliveries} deliveries to ${endpoints} endpoint(s), each request answered after ${SLOW_RECEIVER_MS} ms`);
    out(`  ${((deliveries / span) * 1000).toFixed(1)} deliveries/s (${ms(span)} from first request to last answer)`);
  } finally {
    await receiver.close();
  }
}

async function main(): Promise<void> {
  const kafka = ensureKafka();
  const sys = await startSystem();
  try {
    const merchant = await sys.merchant();
    await latency(sys, merchant);
    out();
    await throughput(sys, merchant, 1, ONE_ENDPOINT_DELIVERIES);
    await throughput(sys, merchant, MANY_ENDPOINTS, MANY_ENDPOINT_DELIVERIES);
    out();
    out(`Settings: WEBHOOK_CONCURRENCY=${sys.env.WEBHOOK_CONCURRENCY ?? 'default (200)'}, ` +
      `WEBHOOK_PER_ENDPOINT_CONCURRENCY=${sys.env.WEBHOOK_PER_ENDPOINT_CONCURRENCY ?? 'default (10)'}, KAFKA_BROKERS=${process.env.KAFKA_BROKERS}`);
  } finally {
    await sys.stop();
    kafka.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
