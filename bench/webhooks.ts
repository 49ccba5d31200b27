/**
 * `npm run bench:webhooks`: figures for the payment → webhook path, printed, not asserted.
 *
 * 1. Latency under a burst: BENCH_WEBHOOKS_LINKS (1,000) links are confirmed through the sandbox provider callback
 *    route, 50 callbacks in flight; for each, the time from the callback's 200 to the merchant's receiver getting the
 *    webhook.
 * 2. Latency at a steady rate: callbacks sent at BENCH_WEBHOOKS_RATE/s (200) for BENCH_WEBHOOKS_SECONDS (10),
 *    open loop; the same percentiles.
 * 3. Throughput against slow merchants: receivers that take 1 s per request; `payment.succeeded` events are
 *    published straight to the topic (what the links outbox relay publishes; the callback route cannot feed
 *    500/s in one process), and the deliveries per second the receivers see once every slot is busy, for one
 *    endpoint (bounded by the per-endpoint concurrency) and for many (the process-wide bound). BENCH_WEBHOOKS_EVENTS
 *    scales every run's events (100 %).
 *
 * BENCH_WEBHOOKS_PARTS=latency or =throughput runs one half. Each part also reports the CPU it cost per event: the
 * services' processes and the Postgres backends of the bench's database, in milliseconds of one core.
 *
 * The system is started as `npm run bench` starts it (bench/lib/system.ts: services from dist/, NODE_ENV=test, a
 * fresh database, a Kafka mock of its own unless BENCH_KAFKA_BROKERS), and stopped by the same lifecycle.
 */
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { createEventPublisher, type EventMessage } from '@pl/bus';
import { createLogger } from '@pl/telemetry';
import { CpuMeter, postgresBackends } from './lib/cpu';
import { Fixtures, type BenchMerchant } from './lib/fixtures';
import { runBench, type Lifecycle } from './lib/lifecycle';
import { paymentSucceededMessage } from './lib/payment-event';
import { BenchReceiver } from './lib/receivers';
import { int } from './lib/settings';
import { percentile, wallNow } from './lib/stats';
import { ROOT, startBench, type BenchSystem } from './lib/system';

const LATENCY_LINKS = int('BENCH_WEBHOOKS_LINKS', 1000);
const PACED_RATE = int('BENCH_WEBHOOKS_RATE', 200);
const PACED_SECONDS = int('BENCH_WEBHOOKS_SECONDS', 10);
/** Percent of each throughput run's events (BENCH_WEBHOOKS_EVENTS, 100): a smaller run for a quick look. */
const EVENTS_PERCENT = int('BENCH_WEBHOOKS_EVENTS', 100, 1, 100);
/** `latency`, `throughput` or both (comma-separated); both by default. */
const PARTS = new Set((process.env.BENCH_WEBHOOKS_PARTS ?? 'latency,throughput').split(',').map((p) => p.trim()));
const SLOW_RECEIVER_MS = 1000;
const IN_FLIGHT = 50;
/** Endpoints and events of each throughput run: one endpoint, then many. */
const THROUGHPUT_RUNS: { endpoints: number; events: number }[] = [
  { endpoints: 1, events: 100 },
  { endpoints: 20, events: 1000 },
  { endpoints: 50, events: 5000 },
].map((r) => ({ ...r, events: Math.max(1, Math.round((r.events * EVENTS_PERCENT) / 100)) }));
const CALLBACK_PATH = '/callbacks/v1/sandbox';
const WEBHOOK_SECRET = 'bench-webhook-secret-0123456789';
/** How long a part waits for its webhooks before it counts the missing ones as a failure. */
const ARRIVAL_TIMEOUT_MS = 120_000;

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

/** Runs `task` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: readonly T[], limit: number, task: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
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

const ms = (n: number): string => `${n.toFixed(1)} ms`;
const spread = (latencies: number[]): string => {
  const s = [...latencies].sort((a, b) => a - b);
  return `p50 ${ms(percentile(s, 50))}, p90 ${ms(percentile(s, 90))}, p99 ${ms(percentile(s, 99))}, max ${ms(s[s.length - 1]!)}, min ${ms(s[0]!)}`;
};

/** CPU of the services' processes and of the database's Postgres backends, per event, in ms of one core. */
function cpuMeter(sys: BenchSystem): { stop: (events: number) => string } {
  const meter = new CpuMeter([
    { name: 'services', pids: () => [...Object.values(sys.services), ...sys.gatewayReplicas].map((p) => p.pid) },
    { name: 'postgres', pids: () => postgresBackends(sys.database.name) },
  ]);
  meter.start();
  return {
    stop: (events) => {
      const w = meter.stop();
      const perEvent = (percent: number): string => (((percent / 100) * w.seconds * 1000) / Math.max(1, events)).toFixed(2);
      return (
        `CPU per event: services ${perEvent(w.usage.services ?? 0)} ms + postgres ${perEvent(w.usage.postgres ?? 0)} ms ` +
        `(services ${w.usage.services}%, postgres ${w.usage.postgres}% of a core over ${w.seconds.toFixed(1)} s; machine ${w.machine}%, others ${w.outside}%)`
      );
    },
  };
}

/** Waits until every id has had its webhook; fails naming how many did not come. */
async function allArrived(receiver: BenchReceiver, ids: readonly string[]): Promise<void> {
  await receiver.waitForAll(ids, ARRIVAL_TIMEOUT_MS);
  const missing = ids.filter((id) => !receiver.firstByLink.has(id)).length;
  if (missing > 0) throw new Error(`${missing} of ${ids.length} webhooks did not arrive within ${ARRIVAL_TIMEOUT_MS / 1000} s`);
}

/** Requests beyond the first per link: redeliveries. */
const repeats = (receiver: BenchReceiver): number => receiver.arrivals.length - receiver.firstByLink.size;

async function createLinks(sys: BenchSystem, merchant: BenchMerchant, shopId: number, count: number): Promise<string[]> {
  return pool(Array.from({ length: count }), IN_FLIGHT, async () => {
    const res = await fetch(`${sys.gatewayUrl}/merchant/v1/payment-links`, {
      method: 'POST',
      headers: { ...merchant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ shop_id: shopId, amount: '100.00' }),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${text}`);
    return (JSON.parse(text) as { id: string }).id;
  });
}

/** The sandbox provider's signed "paid" for one link; resolves with the wall time its 200 came. */
async function confirmOne(sys: BenchSystem, id: string): Promise<number> {
  const body = JSON.stringify({ gateway_payment_id: `sbx_${id}`, status: 'paid' });
  const signature = createHmac('sha256', sys.env.PROVIDER_SANDBOX_SECRET!).update(body).digest('hex');
  const res = await fetch(`${sys.gatewayUrl}${CALLBACK_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provider-signature': signature },
    body,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`callback failed: ${res.status} ${text}`);
  return wallNow();
}

/** Confirms every link through the callback route, IN_FLIGHT at a time; returns when each callback was accepted. */
async function confirmBurst(sys: BenchSystem, ids: readonly string[]): Promise<Map<string, number>> {
  const accepted = new Map<string, number>();
  await pool(ids, IN_FLIGHT, async (id) => accepted.set(id, await confirmOne(sys, id)));
  return accepted;
}

/**
 * Sends one callback every 1/rate s (open loop: a slow answer does not delay the next); a refused callback
 * (a system that cannot keep up answers 503) is counted, not retried.
 */
async function confirmPaced(
  sys: BenchSystem,
  ids: readonly string[],
  rate: number,
): Promise<{ accepted: Map<string, number>; lateMs: number; refused: Map<string, number> }> {
  const accepted = new Map<string, number>();
  const start = performance.now();
  let lateMs = 0;
  const refused = new Map<string, number>();
  const refuse = (e: unknown): void => {
    const why = e instanceof Error ? e.message.slice(0, 120) : String(e);
    refused.set(why, (refused.get(why) ?? 0) + 1);
  };
  const sent: Promise<unknown>[] = [];
  for (let i = 0; i < ids.length; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    lateMs = Math.max(lateMs, performance.now() - due);
    const id = ids[i]!;
    sent.push(confirmOne(sys, id).then((at) => accepted.set(id, at), refuse));
  }
  await Promise.all(sent);
  return { accepted, lateMs, refused };
}

async function latency(life: Lifecycle, sys: BenchSystem, fixtures: Fixtures): Promise<void> {
  const receiver = await BenchReceiver.start();
  life.defer(() => receiver.close());
  const merchant = await fixtures.merchant();
  const shop = await fixtures.shop(merchant.id, { url: receiver.url, secret: WEBHOOK_SECRET });
  // Warm-up: the consumer group joins and the topic exists before anything is timed.
  const [warm] = await createLinks(sys, merchant, shop, 1);
  await confirmBurst(sys, [warm!]);
  await allArrived(receiver, [warm!]);
  const latencies = (ids: readonly string[], accepted: ReadonlyMap<string, number>): number[] =>
    ids.map((id) => receiver.firstByLink.get(id)! - accepted.get(id)!);

  const ids = await createLinks(sys, merchant, shop, LATENCY_LINKS);
  const cpu = cpuMeter(sys);
  const started = performance.now();
  const accepted = await confirmBurst(sys, ids);
  const callbacksDone = performance.now();
  await allArrived(receiver, ids);
  const finished = performance.now();
  const used = cpu.stop(ids.length);
  out(`Latency under a burst: ${LATENCY_LINKS} links confirmed through POST ${CALLBACK_PATH} (${IN_FLIGHT} callbacks in flight)`);
  out(`  callbacks: ${((LATENCY_LINKS / (callbacksDone - started)) * 1000).toFixed(0)}/s accepted (${ms(callbacksDone - started)} for all)`);
  out(`  callback accepted -> webhook received: ${spread(latencies(ids, accepted))}`);
  out(`  all ${LATENCY_LINKS} webhooks received ${ms(finished - started)} after the first callback; repeated webhooks: ${repeats(receiver)}`);
  out(`  ${used}`);
  if (life.interrupted) return;

  const pacedIds = await createLinks(sys, merchant, shop, PACED_RATE * PACED_SECONDS);
  const pacedCpu = cpuMeter(sys);
  const paced = await confirmPaced(sys, pacedIds, PACED_RATE);
  const confirmed = pacedIds.filter((id) => paced.accepted.has(id));
  await allArrived(receiver, confirmed);
  const pacedUsed = pacedCpu.stop(confirmed.length);
  out(`Latency at a steady rate: ${pacedIds.length} callbacks at ${PACED_RATE}/s (open loop; the sender was at most ${ms(paced.lateMs)} late)`);
  const refused = [...paced.refused].map(([why, n]) => `${n} × ${why}`).join('; ') || 'none';
  out(`  refused callbacks: ${refused}`);
  out(`  callback accepted -> webhook received: ${spread(latencies(confirmed, paced.accepted))}`);
  out(`  repeated webhooks: ${repeats(receiver)}; ${pacedUsed}`);
}

/** `count` events as the outbox relay publishes them, spread over the shops. */
function events(merchantId: string, shopIds: readonly number[], count: number): { ids: string[]; messages: EventMessage[] } {
  const made = Array.from({ length: count }, (_, i) => paymentSucceededMessage(merchantId, shopIds, i));
  return { ids: made.map((m) => m.linkId), messages: made.map((m) => m.message) };
}

async function throughput(life: Lifecycle, sys: BenchSystem, fixtures: Fixtures, endpoints: number, count: number): Promise<void> {
  const receiver = await BenchReceiver.start(SLOW_RECEIVER_MS);
  life.defer(() => receiver.close());
  const publisher = createEventPublisher({ brokers: sys.kafkaBrokers.split(','), clientId: 'bench-webhooks', log: createLogger('bench', 'warn') });
  life.defer(() => publisher.close());
  const merchant = await fixtures.merchant();
  const shops: number[] = [];
  for (let i = 0; i < endpoints; i++) shops.push(await fixtures.shop(merchant.id, { url: `${receiver.url}/${i}`, secret: WEBHOOK_SECRET }));
  const { ids, messages } = events(merchant.id, shops, count);
  const cpu = cpuMeter(sys);
  for (let i = 0; i < messages.length; i += 500) await publisher.publish(sys.env.PAYMENT_EVENTS_TOPIC!, messages.slice(i, i + 500));
  await allArrived(receiver, ids);
  const used = cpu.stop(count);
  const at = [...receiver.firstByLink.values()].sort((a, b) => a - b);
  // From the first request arriving to the last one answered: the span the receivers were busy.
  const span = at[at.length - 1]! + SLOW_RECEIVER_MS - at[0]!;
  // Steady state: receivers answer after SLOW_RECEIVER_MS, so arrivals come in one wave per period. Whole
  // periods from the first arrival, before the last (draining) one: each counts its wave exactly once.
  const periods = Math.floor((at[at.length - 1]! - at[0]!) / SLOW_RECEIVER_MS);
  const steadyUntil = at[0]! + periods * SLOW_RECEIVER_MS;
  const steady = periods > 0 ? at.filter((t) => t < steadyUntil).length / ((periods * SLOW_RECEIVER_MS) / 1000) : NaN;
  out(`Throughput: ${count} deliveries to ${endpoints} endpoint(s), each request answered after ${SLOW_RECEIVER_MS} ms`);
  out(
    `  ${((count / span) * 1000).toFixed(1)} deliveries/s overall (${ms(span)} from first request to last answer), ` +
      `${Number.isNaN(steady) ? '–' : steady.toFixed(1)}/s in steady state; peak ${receiver.peakInFlight} in flight; repeated webhooks: ${repeats(receiver)}`,
  );
  out(`  ${used}`);
}

async function main(life: Lifecycle): Promise<number> {
  const { sys } = await startBench(life, join(ROOT, '.local', 'bench', 'webhooks-logs'));
  const fixtures = new Fixtures(sys.database.url, sys.env.WEBHOOK_SECRET_KEY!);
  life.defer(() => fixtures.close());
  if (PARTS.has('latency')) {
    await latency(life, sys, fixtures);
    out();
  }
  if (PARTS.has('throughput')) {
    for (const run of THROUGHPUT_RUNS) if (!life.interrupted) await throughput(life, sys, fixtures, run.endpoints, run.events);
    out();
  }
  out(
    `Settings: WEBHOOK_CONCURRENCY=${sys.env.WEBHOOK_CONCURRENCY ?? 'default'}, ` +
      `WEBHOOK_PER_ENDPOINT_CONCURRENCY=${sys.env.WEBHOOK_PER_ENDPOINT_CONCURRENCY ?? 'default'}, KAFKA_BROKERS=${sys.kafkaBrokers}`,
  );
  return 0;
}

runBench('bench:webhooks', main);
