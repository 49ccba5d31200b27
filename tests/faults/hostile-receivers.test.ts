import { eventually } from '@pl/testing';
import { startHostileReceivers, type HostileBehaviour, type HostileReceiver } from '../support/hostile-receivers';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestSystem } from '../support/system';

/**
 * Every kind of hostile webhook endpoint at once, each with more deliveries than it has slots, while a
 * well-behaved shop is paid: its webhooks must not wait for any hostile attempt to end, the notifier
 * must stay alive and lean, and every hostile attempt must be logged for what it was.
 * (services/notifier/test/webhook-delivery.test.ts covers each rule alone: one 302, one time-out, one
 * 5 MiB body, one hanging shop.)
 */

/**
 * Long enough that one slot-holding attempt outlasts the whole good-shop phase several times over (the
 * last good webhook came about 2 s after the first slot holder was accepted, against 9 s allowed),
 * short enough for a ~20 s file.
 */
const TIMEOUT_MS = 10_000;
const PER_ENDPOINT = 2;
const PAYMENTS_PER_HOSTILE_SHOP = 3;
/** More deliveries than the notifier has slots: without the per-endpoint bound they alone would fill them all. */
const PAYMENTS_PER_SLOT_HOLDER = 12;
const CONCURRENCY = 32;
const GOOD_PAYMENTS = 8;
/** Slack for timer and accept-event lag on a loaded 2-core machine; small next to TIMEOUT_MS. */
const LAG_MS = 1000;

const behaviours = (goodUrl: string) =>
  ({
    hang: { kind: 'hang' },
    'reset-on-request': { kind: 'reset-on-request' },
    'reset-mid-headers': { kind: 'reset-mid-headers' },
    'reset-mid-body': { kind: 'reset-mid-body' },
    'endless-500': { kind: 'endless-body', status: 500 },
    'endless-200': { kind: 'endless-body', status: 200 },
    'trickle-headers': { kind: 'trickle-headers' },
    'trickle-body': { kind: 'trickle-body' },
    'huge-headers': { kind: 'huge-headers' },
    garbage: { kind: 'garbage' },
    'redirect-301': { kind: 'redirect', status: 301, location: goodUrl },
    'redirect-307': { kind: 'redirect', status: 307, location: goodUrl },
    'redirect-308': { kind: 'redirect', status: 308, location: goodUrl },
  }) satisfies Record<string, HostileBehaviour>;
type HostileName = keyof ReturnType<typeof behaviours>;
/** The endpoints whose attempts hold their slot until the time-out. */
const SLOT_HOLDERS: HostileName[] = ['hang', 'trickle-headers', 'trickle-body'];

/** What the delivery log must say of every attempt at each endpoint. */
const timeout = { status_code: null, error: `timeout after ${TIMEOUT_MS} ms` };
const EXPECTED: Record<Exclude<HostileName, 'endless-200'>, { status_code: number | null; error: string | null }> = {
  hang: timeout,
  'trickle-headers': timeout,
  'reset-on-request': { status_code: null, error: 'connection failed: ECONNRESET' },
  'reset-mid-headers': { status_code: null, error: 'connection failed: ECONNRESET' },
  'huge-headers': { status_code: null, error: 'connection failed: HPE_HEADER_OVERFLOW' },
  garbage: { status_code: null, error: 'connection failed: HPE_INVALID_CONSTANT' },
  // An answer cut short, or never finished, after its status line is still that status: a failure.
  'reset-mid-body': { status_code: 500, error: null },
  'trickle-body': { status_code: 500, error: null },
  'endless-500': { status_code: 500, error: null },
  'redirect-301': { status_code: 301, error: 'redirect not followed' },
  'redirect-307': { status_code: 307, error: 'redirect not followed' },
  'redirect-308': { status_code: 308, error: 'redirect not followed' },
};

interface AttemptRow extends Record<string, unknown> {
  endpoint: string;
  payment_link_id: string;
  delivery_status: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  head: Buffer | null;
}

let sys: TestSystem;
let good: WebhookReceiver;
let hostile: Record<HostileName, HostileReceiver>;
let hostileMerchant: TestMerchant;
let goodMerchant: TestMerchant;
const goodLinks: string[] = [];
const hostileLinks = new Map<HostileName, string[]>();
const memory = { baseline: 0, peak: 0 };
let sampler: NodeJS.Timeout | undefined;

const heapAndBuffers = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

async function createLink(merchant: TestMerchant, shopId: number): Promise<string> {
  const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: shopId, amount: '100.00' }, { headers: merchant.keys });
  if (res.status !== 201) throw new Error(`create link: ${res.status} ${res.text}`);
  return res.body.id as string;
}

async function pay(linkId: string): Promise<void> {
  const res = await sys.providerCallback(sandboxPaymentId(linkId), 'paid');
  if (res.status !== 200) throw new Error(`callback: ${res.status} ${res.text}`);
}

const nameOf = (endpoint: string): HostileName => (Object.keys(hostile) as HostileName[]).find((n) => hostile[n].url === endpoint)!;

const attemptRows = (): Promise<AttemptRow[]> =>
  sys.sql<AttemptRow>(
    `SELECT a.endpoint, d.payment_link_id, d.status AS delivery_status, a.attempt, a.status_code, a.error, a.duration_ms, a.response_head AS head
       FROM notifier.delivery_attempts a JOIN notifier.deliveries d ON d.id = a.delivery_id
      WHERE d.merchant_id = $1 ORDER BY a.at`,
    [hostileMerchant.id],
  );

beforeAll(async () => {
  good = await WebhookReceiver.start();
  hostile = await startHostileReceivers(behaviours(good.url));
  sys = await startSystem({
    env: {
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_PER_ENDPOINT_CONCURRENCY: String(PER_ENDPOINT),
      // Room for every hostile endpoint's slots (13 x 2) and a few more, but fewer than the slot
      // holders' deliveries (3 x 12 = 36).
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
    },
  });
  hostileMerchant = await sys.merchant();
  for (const name of Object.keys(hostile) as HostileName[]) {
    const shop = await sys.shop(hostileMerchant.id, { webhookUrl: hostile[name].url });
    const count = SLOT_HOLDERS.includes(name) ? PAYMENTS_PER_SLOT_HOLDER : PAYMENTS_PER_HOSTILE_SHOP;
    hostileLinks.set(name, await Promise.all(Array.from({ length: count }, () => createLink(hostileMerchant, shop.id))));
  }
  const goodShop = await sys.merchantWithShop({ webhookUrl: good.url });
  goodMerchant = goodShop.merchant;
  for (let i = 0; i < GOOD_PAYMENTS; i += 1) goodLinks.push(await createLink(goodMerchant, goodShop.shop.id));
  memory.baseline = heapAndBuffers();
  memory.peak = memory.baseline;
  sampler = setInterval(() => (memory.peak = Math.max(memory.peak, heapAndBuffers())), 50);
}, 30_000);

afterAll(async () => {
  clearInterval(sampler);
  // Receivers first: their held connections end, so the notifier's stop need not wait out attempts.
  await Promise.all(Object.values(hostile ?? {}).map((r) => r.close()));
  await good?.close();
  await sys?.stop();
}, 30_000);

describe('hostile webhook receivers', () => {
  let hostileStartedAt = 0;

  it("delivers a well-behaved shop's webhooks before any hostile attempt has even timed out", async () => {
    await Promise.all([...hostileLinks.values()].flat().map(pay));
    await Promise.all(Object.values(hostile).map((r) => r.firstRequest()));
    hostileStartedAt = Math.min(...SLOT_HOLDERS.map((n) => hostile[n].connections[0]!.acceptedAt));

    for (const id of goodLinks) {
      await pay(id);
      const hit = await good.nthFor(id, 1);
      expect(hit.headers['x-webhook-attempt']).toBe('1');
    }
    const lastArrival = Math.max(...good.hits.map((h) => h.at));
    // A good delivery that had to wait for a hostile slot would wait for a time-out: the earliest one
    // cannot come before the first slot holder was accepted + TIMEOUT_MS. Every good webhook (and the
    // whole sequence of them, paid one after another) arrived before that moment.
    expect(lastArrival).toBeLessThan(hostileStartedAt + TIMEOUT_MS - LAG_MS);
    // Still in the hostile window: slot holders are still connected.
    expect(SLOT_HOLDERS.every((n) => hostile[n].connections.some((c) => c.closedAt === null))).toBe(true);
    expect(good.hits).toHaveLength(GOOD_PAYMENTS);
  }, 40_000);

  it('keeps the notifier healthy and ready while hostile attempts are in flight', async () => {
    const health = await fetch(`http://127.0.0.1:${sys.notifierOpsPort}/healthz`);
    const ready = await fetch(`http://127.0.0.1:${sys.notifierOpsPort}/readyz`);
    expect([health.status, ready.status]).toEqual([200, 200]);
  });

  it('logs every hostile attempt as failed with what went wrong, follows no redirect and lets go of every connection', async () => {
    // Slot holders' first attempts end at their time-out; until then the log holds only the fast failures.
    let rows: AttemptRow[] = [];
    const names = Object.keys(EXPECTED) as (keyof typeof EXPECTED)[];
    const unseen = () => names.filter((n) => !rows.some((r) => nameOf(r.endpoint) === n));
    // Polling the log: the attempts end inside the notifier.
    await eventually(
      async () => {
        rows = await attemptRows();
        return unseen().length === 0;
      },
      () => `an attempt logged for every hostile receiver (none yet for ${unseen().join(', ')})`,
      hostileStartedAt + TIMEOUT_MS + 10_000 - performance.now(),
      200,
    );

    for (const name of names) {
      const mine = rows.filter((r) => nameOf(r.endpoint) === name);
      expect({ name, outcomes: new Set(mine.map((r) => JSON.stringify({ status_code: r.status_code, error: r.error }))) }).toEqual({
        name,
        outcomes: new Set([JSON.stringify(EXPECTED[name])]),
      });
      expect({ name, succeeded: mine.filter((r) => r.delivery_status === 'succeeded').length }).toEqual({ name, succeeded: 0 });
    }
    for (const r of rows.filter((x) => SLOT_HOLDERS.includes(nameOf(x.endpoint)))) {
      expect(r.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(r.duration_ms).toBeLessThan(TIMEOUT_MS + LAG_MS);
    }
    const heads = (name: HostileName) => rows.filter((r) => nameOf(r.endpoint) === name).map((r) => r.head?.toString('latin1'));
    expect(new Set(heads('endless-500').map((h) => h?.length))).toEqual(new Set([4096]));
    expect(new Set(heads('reset-mid-body'))).toEqual(new Set(['partial body']));
    expect(heads('trickle-body').every((h) => h !== undefined && /^(slow)+s?l?o?$/.test(h))).toBe(true);

    // A 2xx is a success however much body follows it; only 4 KiB of it was read.
    const endless200 = rows.filter((r) => nameOf(r.endpoint) === 'endless-200');
    expect(endless200.map((r) => [r.attempt, r.status_code, r.error, r.delivery_status, r.head?.length])).toEqual(
      hostileLinks.get('endless-200')!.map(() => [1, 200, null, 'succeeded', 4096]),
    );

    // No redirect was followed: the good receiver, their target, got only the good shop's webhooks.
    const hostileIds = new Set([...hostileLinks.values()].flat());
    expect(good.hits.filter((h) => hostileIds.has(h.json?.data?.payment_link_id))).toEqual([]);

    // The merchant sees the same log through the API.
    const hangLink = rows.find((r) => nameOf(r.endpoint) === 'hang')!.payment_link_id;
    const log = await sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${hangLink}`, { headers: hostileMerchant.keys });
    expect(log.status).toBe(200);
    expect(log.body.deliveries[0].attempts[0]).toMatchObject({ attempt: 1, status_code: null, error: `timeout after ${TIMEOUT_MS} ms` });

    // Every connection the notifier opened was closed by it within its time-out (no leaked sockets).
    const now = performance.now();
    for (const [name, r] of Object.entries(hostile)) {
      const longest = Math.max(...r.connections.map((c) => (c.closedAt ?? now) - c.acceptedAt));
      expect({ name, held: longest < TIMEOUT_MS + LAG_MS }).toEqual({ name, held: true });
    }
  }, 30_000);

  it('reads no more of an endless body than the socket buffers hold, so memory stays flat', () => {
    const written = [...hostile['endless-500'].connections, ...hostile['endless-200'].connections].map((c) => c.bytesWritten);
    // Each endpoint offers 512 MiB; a sender that read it all would take that much per attempt. What
    // the receiver managed to write before the sender hung up is what kernel socket buffers absorbed.
    expect(Math.max(...written)).toBeLessThan(64 * 1024 * 1024);
    expect(memory.peak - memory.baseline).toBeLessThan(150 * 1024 * 1024);
  });
});
