import { randomUUID } from 'node:crypto';
import { eventually, withDeadline } from '@pl/testing';
import type { ApiResponse } from '../support/http';
import { expectedAndActualEvents, expectLedgerClean, refundCallback, shopMoney, subscribeToEveryEvent, verifyLedger } from '../support/money';
import { PrivatePostgres } from '../support/private-servers';
import { recoveryBounds } from '../support/recovery-bounds';
import { startServiceProcess, type ServiceProcess } from '../support/processes';
import {
  sandboxPaymentId,
  startSystem,
  WebhookReceiver,
  type SystemOptions,
  type TestMerchant,
  type TestShop,
  type TestSystem,
} from '../support/system';

/**
 * The money of docs/money.md through faults: the links service killed (SIGKILL) with state changes
 * committed and their events not yet relayed, then again between a relay's publish and its mark; Postgres crashed
 * and restarted while refunds are made and settled. Afterwards nothing is lost or doubled: every move has one
 * event, every event reaches the merchant once under its id, and ledger:verify passes.
 */

/** A recovery (relay poll, lease, redelivery, a group rejoin) must happen within this: from the configured time-outs. */
const STEP_BOUND_MS = recoveryBounds().stepMs;
// A test: a few recoveries one after another.
jest.setTimeout(4 * STEP_BOUND_MS);
const POLL_MS = 100;
/** Nothing listens there: a links process given it can commit but never publish. */
const UNREACHABLE_KAFKA = '127.0.0.1:9';

/** One system with a merchant whose shop is sent every event type, and the processes a test ran. */
class Harness {
  readonly processes: ServiceProcess[] = [];
  private constructor(
    readonly sys: TestSystem,
    readonly receiver: WebhookReceiver,
    readonly merchant: TestMerchant,
    readonly shop: TestShop,
  ) {}

  static async start(options: SystemOptions, pg?: PrivatePostgres): Promise<Harness> {
    const sys = await startSystem({ ...options, ...(pg ? { postgresHostUrl: pg.hostUrl } : {}) });
    const receiver = await WebhookReceiver.start();
    const { merchant, shop } = await sys.merchantWithShop({ webhookUrl: receiver.url, webhookSecret: 'money-faults-secret', feePayer: 'client' });
    await subscribeToEveryEvent(sys, await sys.login(merchant), shop.id);
    return new Harness(sys, receiver, merchant, shop);
  }

  /** Runs links from dist/; `info` logs because the "started" line is how it is known to be up. */
  async runLinks(env: Record<string, string>): Promise<ServiceProcess> {
    const p = await startServiceProcess('links', { ...this.sys.env, LOG_LEVEL: 'info', ...env });
    this.processes.push(p);
    return p;
  }

  async createLink(amount: string): Promise<string> {
    const res = await this.sys.http.post(
      '/merchant/v1/payment-links',
      { shop_id: this.shop.id, amount, order_id: `faults-${randomUUID()}` },
      { headers: this.merchant.keys },
    );
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  refund(linkId: string, body: unknown, key?: string): Promise<ApiResponse> {
    return this.sys.http.post(`/merchant/v1/payment-links/${linkId}/refunds`, body, {
      headers: { ...this.merchant.keys, ...(key ? { 'Idempotency-Key': key } : {}) },
    });
  }

  /**
   * The end state: every move has exactly one event in the outbox, every event was published, recorded by the
   * notifier once, delivered by one succeeded delivery and received by the merchant exactly once under
   * `evt_<event id>`; the ledger balances and the shop's balance is what its links and refunds say.
   */
  async expectNothingLostOrDoubled(): Promise<void> {
    const { sys, receiver, shop } = this;
    const events = await expectedAndActualEvents(sys, shop.id);
    expect(events.actual).toEqual(events.expected);
    expect(events.actual.length).toBeGreaterThan(0);
    const outbox = await sys.sql<{ id: string; event: string }>(
      `SELECT id::text, payload->>'event' AS event FROM links.outbox WHERE (payload->'data'->>'shop_id')::bigint = $1`,
      [shop.id],
    );
    const publicIds = outbox.map((e) => `evt_${e.id}`).sort();
    await eventually(
      async () => {
        const [left] = await sys.sql<{ unpublished: string; undelivered: string }>(
          `SELECT (SELECT count(*) FROM links.outbox_pending) AS unpublished,
                  (SELECT count(*) FROM notifier.deliveries WHERE status <> 'succeeded') AS undelivered`,
        );
        const received = new Set(receiver.hits.map((h) => h.headers['webhook-id']));
        return Number(left?.unpublished) === 0 && Number(left?.undelivered) === 0 && publicIds.every((id) => received.has(id));
      },
      'every event published, delivered and received',
      STEP_BOUND_MS,
      POLL_MS,
    );
    const inbox = await sys.sql<{ event_id: string }>('SELECT event_id::text FROM notifier.inbox_events WHERE event_id = ANY($1::uuid[])', [
      outbox.map((e) => e.id),
    ]);
    expect(inbox.map((r) => r.event_id).sort()).toEqual(outbox.map((e) => e.id).sort());
    const deliveries = await sys.sql<{ event_id: string; n: string }>(
      `SELECT event_id::text, count(*) AS n FROM notifier.deliveries WHERE event_id = ANY($1::uuid[]) GROUP BY 1`,
      [outbox.map((e) => e.id)],
    );
    expect(deliveries.map((d) => [d.event_id, Number(d.n)]).sort()).toEqual(outbox.map((e) => [e.id, 1]).sort());
    // The merchant heard each event once, under the id its body carries, and nothing else.
    const heard = receiver.hits.map((h) => h.headers['webhook-id'] as string).sort();
    expect(heard).toEqual(publicIds);
    for (const hit of receiver.hits) expect(hit.json?.event_id).toBe(hit.headers['webhook-id']);

    await expectLedgerClean(sys);
    expect((await verifyLedger(sys)).transactions).toBeGreaterThan(0);
    const money = await shopMoney(sys, shop.id, true);
    expect(money.ledger).toEqual(money.expected);
  }

  async stop(): Promise<void> {
    for (const p of this.processes) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await p.exited;
    }
    await this.receiver.close();
    await this.sys.stop();
  }
}

async function expectKilled(p: ServiceProcess, what: string): Promise<void> {
  const code = await withDeadline(p.exited, STEP_BOUND_MS, what, () => p.lines.slice(-20).join('\n'));
  expect({ code, signal: p.child.signalCode }).toEqual({ code: null, signal: 'SIGKILL' });
}

let h: Harness | undefined;
let pg: PrivatePostgres | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
  await pg?.close();
  pg = undefined;
}, 60_000);

it('links killed with every kind of move committed and none relayed, then again between a publish and its mark: each event is delivered once and the ledger balances', async () => {
  h = await Harness.start({ withoutLinks: true });
  const { sys } = h;
  // The first process commits every move and its event but can publish none of them.
  const cutOff = await h.runLinks({ KAFKA_BROKERS: UNREACHABLE_KAFKA });

  const paid = [await h.createLink('300.00'), await h.createLink('200.00'), await h.createLink('100.00')];
  const failed = await h.createLink('50.00');
  const canceled = await h.createLink('60.00');
  const expiring = await h.createLink('70.00');
  const results = await Promise.all([
    ...paid.map((id) => sys.providerCallback(sandboxPaymentId(id), 'paid')),
    sys.providerCallback(sandboxPaymentId(failed), 'failed'),
    sys.http.post(`/merchant/v1/payment-links/${canceled}/cancel`, {}, { headers: h.merchant.keys }),
  ]);
  expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
  // Time travel: the link falls due now, and the sweeper of the running process expires it.
  await sys.sql('UPDATE links.payment_links SET expires_at = clock_timestamp() WHERE id = $1', [expiring]);
  const refunds = await Promise.all([h.refund(paid[0]!, { amount: '100.00' }), h.refund(paid[1]!, {}), h.refund(paid[2]!, { amount: '10.00' })]);
  expect(refunds.map((r) => r.status)).toEqual([201, 201, 201]);
  const settled = await Promise.all([
    refundCallback(sys, refunds[0].body.gateway_refund_id as string, 'succeeded'),
    refundCallback(sys, refunds[1].body.gateway_refund_id as string, 'failed', 'account closed'),
  ]);
  expect(settled.map((r) => r.status)).toEqual([200, 200]);
  await eventually(
    async () => (await sys.sql(`SELECT 1 FROM links.payment_links WHERE id = $1 AND status = 'expired'`, [expiring])).length === 1,
    'the sweeper expires the due link',
    STEP_BOUND_MS,
    POLL_MS,
  );

  // Every move is committed with its event, and not one event left the process.
  const events = await expectedAndActualEvents(sys, h.shop.id);
  expect(events.actual).toEqual(events.expected);
  expect(events.actual.map((e) => e.split(' ')[0]).sort()).toEqual(
    [
      'payment.failed',
      'payment.succeeded',
      'payment.succeeded',
      'payment.succeeded',
      'payment_link.canceled',
      'payment_link.expired',
      'refund.failed',
      'refund.succeeded',
    ].sort(),
  );
  const [before] = await sys.sql<{ unpublished: string; all: string }>(
    'SELECT (SELECT count(*) FROM links.outbox_pending) AS unpublished, count(*) AS all FROM links.outbox',
  );
  expect(Number(before?.unpublished)).toBe(Number(before?.all));
  cutOff.child.kill('SIGKILL');
  await expectKilled(cutOff, 'links killed with nothing relayed');
  expect(h.receiver.hits).toEqual([]);

  // The next process publishes the dead one's events from the outbox and is killed before it marks them.
  const relaying = await h.runLinks({ OUTBOX_PUBLISH_TIMEOUT_MS: '100', CRASH_AT: 'links.after-publish-before-mark', CRASH_AT_HIT: '1' });
  await expectKilled(relaying, 'links killed between publish and mark');
  const [between] = await sys.sql<{ unpublished: string }>('SELECT count(*) AS unpublished FROM links.outbox_pending');
  expect(Number(between?.unpublished)).toBe(Number(before?.all));

  // A clean process publishes them again, under the same ids: the notifier sends each once.
  await h.runLinks({ OUTBOX_PUBLISH_TIMEOUT_MS: '100' });
  await h.expectNothingLostOrDoubled();
  // The state the merchant reads agrees: the partly refunded link says so, the failed refund gave its money back.
  const read = await sys.http.get(`/merchant/v1/payment-links/${paid[0]}`, { headers: h.merchant.keys });
  expect(read.body).toMatchObject({ status: 'paid', amount_refunded: '100.00' });
  const balance = await sys.http.get(`/merchant/v1/balance?shop_id=${h.shop.id}`, { headers: h.merchant.keys });
  expect(balance.body).toMatchObject({ available: '490.00', refund_reserve: '10.00' });
});

it('Postgres crashed and restarted while refunds are made and settled: every refund asked for exists once, every settle holds, each event is delivered once, the ledger balances', async () => {
  pg = await PrivatePostgres.start();
  h = await Harness.start({}, pg);
  const harness = h;
  const { sys } = harness;
  const LINKS = 8;
  /** 10.00 each: never near a link's 1000.00, so every refund asked for is one the rules allow. */
  const MAX_REFUNDS_PER_LINK = 40;
  const links: string[] = [];
  for (let i = 0; i < LINKS; i++) {
    const id = await harness.createLink('1000.00');
    expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
    links.push(id);
  }

  /** Every answer, retries included. */
  const statuses: number[] = [];
  /** A provider and a merchant both retry what got 503 until it is answered; the merchant with its key. */
  const untilAnswered = async (call: () => Promise<ApiResponse>): Promise<ApiResponse> => {
    const giveUpAt = Date.now() + STEP_BOUND_MS;
    for (;;) {
      const res = await call();
      statuses.push(res.status);
      if (res.status !== 503 || Date.now() > giveUpAt) return res;
      await new Promise((r) => setTimeout(r, 100)); // the retry pause of a client told Retry-After
    }
  };
  const made = new Map<string, { refundId: string; outcome: 'succeeded' | 'failed' }>();
  let running = true;
  let round = 0;
  const worker = async (link: string, n: number): Promise<void> => {
    for (let i = 0; running && i < MAX_REFUNDS_PER_LINK; i++) {
      const key = `pg-restart-${link}-${i}`;
      const created = await untilAnswered(() => harness.refund(link, { amount: '10.00' }, key));
      expect(created.status).toBe(201);
      const outcome = (n + i) % 2 === 0 ? 'succeeded' : 'failed';
      made.set(key, { refundId: created.body.id as string, outcome });
      const settled = await untilAnswered(() => refundCallback(sys, created.body.gateway_refund_id as string, outcome));
      expect(settled.status).toBe(200);
      round += 1;
    }
  };
  // A worker's failure is judged after the others stop, so it never hides what the outage itself did.
  const workers = links.map((link, n) =>
    worker(link, n).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  try {
    await eventually(() => round >= LINKS, 'refunds before the crash', STEP_BOUND_MS, POLL_MS);
    await pg.crash();
    const crashedAt = Date.now();
    await eventually(
      () => Date.now() - crashedAt >= 2000 && statuses.filter((s) => s === 503).length >= 1,
      '503s during the outage',
      15_000,
      POLL_MS,
    );
    await pg.startServer();
    const roundAtRestart = round;
    await eventually(() => round >= roundAtRestart + LINKS, 'refunds settled after the restart', STEP_BOUND_MS, POLL_MS);
  } finally {
    running = false;
  }
  expect((await Promise.all(workers)).filter((e) => e !== undefined)).toEqual([]);
  // Only the clean 503 of a database away, never a 5xx of another kind or a 4xx the rules did not call for.
  expect([...new Set(statuses)].sort()).toEqual([200, 201, 503]);

  // Each key made one refund, and it ended as its callback said.
  const rows = await sys.sql<{ id: string; status: string }>('SELECT id::text, status FROM links.refunds WHERE shop_id = $1', [harness.shop.id]);
  expect(rows.map((r) => r.id).sort()).toEqual([...made.values()].map((m) => m.refundId).sort());
  const byId = new Map(rows.map((r) => [r.id, r.status]));
  expect([...made.values()].filter((m) => byId.get(m.refundId) !== m.outcome)).toEqual([]);
  console.log(`postgres restart during refunds: ${made.size} refunds, ${statuses.filter((s) => s === 503).length} answers 503`);
  await harness.expectNothingLostOrDoubled();
});
