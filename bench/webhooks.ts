/**
 * `npm run bench:webhooks`: figures for the payment → webhook path, printed, not asserted.
 *
 * 1. Latency under a burst: 1,000 links are confirmed through the sandbox provider callback route, 50 callbacks
 *    in flight; for each, the time from the callback's 200 to the merchant's receiver getting the webhook.
 * 2. Latency at a steady rate: callbacks sent at BENCH_WEBHOOKS_RATE/s (200) for BENCH_WEBHOOKS_SECONDS (10),
 *    open loop; the same percentiles.
 * 3. Throughput against slow merchants: receivers that take 1 s per request; `payment.succeeded` events are
 *    published straight to the topic (what the links outbox relay publishes; the callback route cannot feed
 *    500/s in one process), and the deliveries per second the receivers see once every slot is busy, for one
 *    endpoint (bounded by the per-endpoint concurrency) and for many (the process-wide bound).
 *
 * BENCH_WEBHOOKS_PARTS=latency or =throughput runs one half. Each part also reports the CPU it cost per event: this process (every service runs here) and the
 * Postgres backends of the bench's database, in milliseconds of one core.
 *
 * The whole platform runs in this process (tests/support/system.ts) against the local Postgres, Redis,
 * NATS and Kafka (KAFKA_BROKERS, else the project's Kafka mock is started and stopped again). For the
 * services as separate processes (closer to production), `npm run bench -- payment notifier`.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createEventPublisher, type EventMessage } from '@pl/bus';
import { createLogger } from '@pl/telemetry';
import { sandboxPaymentId, startSystem, WebhookReceiver, type ReceivedWebhook, type TestMerchant, type TestSystem } from '../tests/support/system';
import { CpuMeter, postgresBackends } from './lib/cpu';
import { paymentSucceededMessage } from './lib/payment-event';
import { percentile } from './lib/stats';

const ROOT = join(__dirname, '..');
const LATENCY_LINKS = 1000;
const PACED_RATE = Number(process.env.BENCH_WEBHOOKS_RATE ?? 200);
const PACED_SECONDS = Number(process.env.BENCH_WEBHOOKS_SECONDS ?? 10);
/** `latency`, `throughput` or both (comma-separated); both by default. */
const PARTS = new Set((process.env.BENCH_WEBHOOKS_PARTS ?? 'latency,throughput').split(',').map((p) => p.trim()));
const SLOW_RECEIVER_MS = 1000;
const IN_FLIGHT = 50;
/** Endpoints and events of each throughput run: one endpoint, then many. */
const THROUGHPUT_RUNS: { endpoints: number; events: number }[] = [
  { endpoints: 1, events: 100 },
  { endpoints: 20, events: 1000 },
  { endpoints: 50, events: 5000 },
];

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

/** KAFKA_BROKERS from the environment, else the project's own Kafka mock (started here, stopped at the end). */
function ensureKafka(): { stop: () => void } {
  if (process.env.KAFKA_BROKERS) return { stop: () => undefined };
  const exports = execFileSync('bash', [join(ROOT, 'scripts', 'local-deps.sh')], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let started = false;
  for (const m of exports.matchAll(/^export (KAFKA_BROKERS|KAFKA_MOCK_PID)='([^']*)'$/gm)) {
    if (m[1] === 'KAFKA_BROKERS') process.env.KAFKA_BROKERS = m[2];
    if (m[1] === 'KAFKA_MOCK_PID') started = true;
  }
  return {
    stop: () => (started ? void execFileSync('bash', [join(ROOT, 'scripts', 'local-deps.sh'), 'stop'], { cwd: ROOT, stdio: 'ignore' }) : undefined),
  };
}

/** CPU of this process (every service) and of the database's Postgres backends, per event, in ms of one core. */
function cpuMeter(sys: TestSystem): { stop: (events: number) => string } {
  const meter = new CpuMeter([
    { name: 'node', pids: () => [process.pid] },
    { name: 'postgres', pids: () => postgresBackends(sys.database.name) },
  ]);
  meter.start();
  return {
    stop: (events) => {
      const w = meter.stop();
      const perEvent = (percent: number): string => (((percent / 100) * w.seconds * 1000) / Math.max(1, events)).toFixed(2);
      return (
        `CPU per event: node ${perEvent(w.usage.node ?? 0)} ms + postgres ${perEvent(w.usage.postgres ?? 0)} ms ` +
        `(node ${w.usage.node}%, postgres ${w.usage.postgres}% of a core over ${w.seconds.toFixed(1)} s; machine ${w.machine}%, others ${w.outside}%)`
      );
    },
  };
}

/** The first arrival per payment link, and a promise for the moment every expected link has arrived. */
class Arrivals {
  readonly first = new Map<string, number>();
  repeats = 0;
  private expected = new Set<string>();
  private done: () => void = () => undefined;

  onHit = (hit: ReceivedWebhook): void => {
    const id = (hit.json as { data?: { payment_link_id?: unknown } } | undefined)?.data?.payment_link_id;
    if (typeof id !== 'string') return;
    if (this.first.has(id)) {
      this.repeats += 1;
      return;
    }
    this.first.set(id, hit.at);
    if (this.expected.delete(id) && this.expected.size === 0) this.done();
  };

  all(ids: readonly string[]): Promise<void> {
    this.expected = new Set(ids.filter((id) => !this.first.has(id)));
    if (this.expected.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.done = resolve));
  }
}

async function createLinks(sys: TestSystem, merchant: TestMerchant, shopIds: readonly number[], count: number): Promise<string[]> {
  return pool(
    Array.from({ length: count }, (_, i) => shopIds[i % shopIds.length]!),
    IN_FLIGHT,
    async (shopId) => {
      const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: shopId, amount: '100.00' }, { headers: merchant.keys });
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
      return (res.body as { id: string }).id;
    },
  );
}

async function confirmOne(sys: TestSystem, id: string): Promise<number> {
  const res = await sys.providerCallback(sandboxPaymentId(id), 'paid');
  if (res.status !== 200) throw new Error(`callback failed: ${res.status} ${res.text}`);
  return performance.now();
}

/** Confirms every link through the callback route, IN_FLIGHT at a time; returns when each callback was accepted. */
async function confirmBurst(sys: TestSystem, ids: readonly string[]): Promise<Map<string, number>> {
  const accepted = new Map<string, number>();
  await pool(ids, IN_FLIGHT, async (id) => accepted.set(id, await confirmOne(sys, id)));
  return accepted;
}

/**
 * Sends one callback every 1/rate s (open loop: a slow answer does not delay the next); a refused callback
 * (a system that cannot keep up answers 503) is counted, not retried.
 */
async function confirmPaced(
  sys: TestSystem,
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

async function latency(sys: TestSystem, merchant: TestMerchant): Promise<void> {
  const arrivals = new Arrivals();
  const receiver = await WebhookReceiver.start({ onHit: arrivals.onHit });
  try {
    const shop = await sys.shop(merchant.id, { webhookUrl: receiver.url, webhookSecret: 'bench-webhook-secret' });
    // Warm-up: the consumer group joins and the topic exists before anything is timed.
    const [warm] = await createLinks(sys, merchant, [shop.id], 1);
    await confirmBurst(sys, [warm!]);
    await arrivals.all([warm!]);

    const ids = await createLinks(sys, merchant, [shop.id], LATENCY_LINKS);
    const cpu = cpuMeter(sys);
    const started = performance.now();
    const accepted = await confirmBurst(sys, ids);
    const callbacksDone = performance.now();
    await arrivals.all(ids);
    const finished = performance.now();
    const used = cpu.stop(ids.length);
    out(`Latency under a burst: ${LATENCY_LINKS} links confirmed through POST /callbacks/v1/sandbox (${IN_FLIGHT} callbacks in flight)`);
    out(`  callbacks: ${((LATENCY_LINKS / (callbacksDone - started)) * 1000).toFixed(0)}/s accepted (${ms(callbacksDone - started)} for all)`);
    out(`  callback accepted -> webhook received: ${spread(ids.map((id) => arrivals.first.get(id)! - accepted.get(id)!))}`);
    out(`  all ${LATENCY_LINKS} webhooks received ${ms(finished - started)} after the first callback; repeated webhooks: ${arrivals.repeats}`);
    out(`  ${used}`);

    const pacedIds = await createLinks(sys, merchant, [shop.id], PACED_RATE * PACED_SECONDS);
    const pacedCpu = cpuMeter(sys);
    const paced = await confirmPaced(sys, pacedIds, PACED_RATE);
    const confirmed = pacedIds.filter((id) => paced.accepted.has(id));
    await arrivals.all(confirmed);
    const pacedUsed = pacedCpu.stop(confirmed.length);
    out(`Latency at a steady rate: ${pacedIds.length} callbacks at ${PACED_RATE}/s (open loop; the sender was at most ${ms(paced.lateMs)} late)`);
    const refused = [...paced.refused].map(([why, n]) => `${n} × ${why}`).join('; ') || 'none';
    out(`  refused callbacks: ${refused}`);
    out(`  callback accepted -> webhook received: ${spread(confirmed.map((id) => arrivals.first.get(id)! - paced.accepted.get(id)!))}`);
    out(`  repeated webhooks: ${arrivals.repeats}; ${pacedUsed}`);
  } finally {
    await receiver.close();
  }
}

/** `count` events as the outbox relay publishes them, spread over the shops. */
function events(merchantId: string, shopIds: readonly number[], count: number): { ids: string[]; messages: EventMessage[] } {
  const made = Array.from({ length: count }, (_, i) => paymentSucceededMessage(merchantId, shopIds, i));
  return { ids: made.map((m) => m.linkId), messages: made.map((m) => m.message) };
}

async function throughput(sys: TestSystem, merchant: TestMerchant, endpoints: number, count: number): Promise<void> {
  const arrivals = new Arrivals();
  let open = 0;
  let peak = 0;
  const receiver = await WebhookReceiver.start({
    delayMs: SLOW_RECEIVER_MS,
    onHit: (hit) => {
      arrivals.onHit(hit);
      open += 1;
      peak = Math.max(peak, open);
      setTimeout(() => (open -= 1), SLOW_RECEIVER_MS);
    },
  });
  const publisher = createEventPublisher({
    brokers: process.env.KAFKA_BROKERS!.split(','),
    clientId: 'bench-webhooks',
    log: createLogger('bench', 'warn'),
  });
  try {
    const shops = await Promise.all(Array.from({ length: endpoints }, (_, i) => sys.shop(merchant.id, { webhookUrl: `${receiver.url}/${i}` })));
    const { ids, messages } = events(
      merchant.id,
      shops.map((s) => s.id),
      count,
    );
    const cpu = cpuMeter(sys);
    for (let i = 0; i < messages.length; i += 500) await publisher.publish(sys.env.PAYMENT_EVENTS_TOPIC!, messages.slice(i, i + 500));
    await arrivals.all(ids);
    const used = cpu.stop(count);
    const at = [...arrivals.first.values()].sort((a, b) => a - b);
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
        `${Number.isNaN(steady) ? '–' : steady.toFixed(1)}/s in steady state; peak ${peak} in flight; repeated webhooks: ${arrivals.repeats}`,
    );
    out(`  ${used}`);
  } finally {
    await publisher.close();
    await receiver.close();
  }
}

async function main(): Promise<void> {
  const kafka = ensureKafka();
  // The limiter still runs, but never refuses the bench's one key pair (it creates links faster than 1,200/min).
  const sys = await startSystem({ env: { RATE_LIMIT_API_KEY_PER_MINUTE: '1000000000' } });
  try {
    const merchant = await sys.merchant();
    if (PARTS.has('latency')) {
      await latency(sys, merchant);
      out();
    }
    if (PARTS.has('throughput')) {
      for (const run of THROUGHPUT_RUNS) await throughput(sys, merchant, run.endpoints, run.events);
      out();
    }
    out(
      `Settings: WEBHOOK_CONCURRENCY=${sys.env.WEBHOOK_CONCURRENCY ?? 'default'}, ` +
        `WEBHOOK_PER_ENDPOINT_CONCURRENCY=${sys.env.WEBHOOK_PER_ENDPOINT_CONCURRENCY ?? 'default'}, KAFKA_BROKERS=${process.env.KAFKA_BROKERS}`,
    );
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
