import { createEventSubscriber, type EventSubscriber } from '@pl/bus';
import type { LinksCrashPoint } from '@pl/links/testing';
import type { NotifierCrashPoint } from '@pl/notifier/testing';
import { createLogger } from '@pl/telemetry';
import { eventually, withDeadline } from '@pl/testing';
import { scrapedSum } from '../support/metrics';
import { recoveryBounds } from '../support/recovery-bounds';
import { startServiceProcess, type ServiceName, type ServiceProcess } from '../support/processes';
import {
  sandboxPaymentId,
  startSystem,
  WebhookReceiver,
  type ReceivedWebhook,
  type SystemOptions,
  type TestMerchant,
  type TestShop,
  type TestSystem,
} from '../support/system';

/**
 * SIGKILL at each step of a payment (the services' crash points, armed by libs/config/src/crash-point.ts), as an OOM kill or a lost node would
 * do it: the service at that step runs as a real process from dist/ armed with CRASH_AT, the rest of the
 * platform in-process. Five links are paid, the first two one by one and the last three at once, so the
 * kill (on the third pass) lands while neighbours are in flight. A replacement process without CRASH_AT
 * is started, and then: no webhook is lost, a repeat carries the same webhook id, every link is paid once
 * at the amounts it was created with, with one event and one delivery, and no link is ever in a state
 * the schema's rules would not allow.
 */

/** Every step where a service can be stopped: its domain's `CrashPoints` port names them. */
type CrashPointName = LinksCrashPoint | NotifierCrashPoint;

const LINKS = 5;
/** The pass that kills: the first two payments complete before it, the last three race it. */
const CRASH_HIT = 3;
/**
 * A notifier's claims outlive it by its lease; a short one (the least the config allows beside these
 * time-outs) lets the replacement resume in seconds rather than the production minute.
 */
const SHORT_LEASE_ENV = { WEBHOOK_LEASE_MS: '2000', WEBHOOK_TIMEOUT_MS: '1000', NATS_REQUEST_TIMEOUT_MS: '1000' };
/**
 * How long a kill, a restart or a redelivery may take, from the time-outs the processes run with (the lease
 * above, the Kafka session and rebalance): a machine busy with other work makes each step slower, never longer
 * than its time-outs allow plus its own work.
 */
const BOUNDS = recoveryBounds(SHORT_LEASE_ENV);
const STEP_BOUND_MS = BOUNDS.stepMs;
/** The first webhook of a fresh system waits for the notifier to join its Kafka group. */
const FIRST_WEBHOOK_BOUND_MS = BOUNDS.groupJoinMs;
/**
 * A replacement notifier's resend: it joins the group the killed one still belongs to (its session runs out, the
 * group rebalances), and the killed one's claim must run out.
 */
const RESEND_BOUND_MS = BOUNDS.groupJoinMs + BOUNDS.leaseTakeoverMs;
/** A whole test: its bounded waits one after another (payments, a kill, a restart, the resends, convergence). */
const TEST_BOUND_MS = 2 * FIRST_WEBHOOK_BOUND_MS + RESEND_BOUND_MS + 2 * STEP_BOUND_MS;
jest.setTimeout(TEST_BOUND_MS);
const POLL_MS = 100;
const LINK_STATUSES = ['pending', 'paid', 'expired', 'canceled', 'failed'];

/** Rejects with `what` (and the service's last log lines) if `work` does not settle within `ms`. */
const within = <T>(work: Promise<T>, ms: number, what: string, logsOf?: ServiceProcess): Promise<T> =>
  withDeadline(work, ms, what, logsOf && (() => `${logsOf.name} said:\n${logsOf.lines.slice(-20).join('\n')}`));

/** Polls until `done()`: recoveries inside other processes (relay, lease expiry) give nothing to await. */
const settles = async (done: () => Promise<boolean>, what: string): Promise<void> => {
  await eventually(done, what, STEP_BOUND_MS, POLL_MS);
};

/** Every copy of every payment event on the system's topic, read by a consumer group of its own. */
class EventTap {
  readonly eventIds: string[] = [];
  private constructor(private readonly subscriber: EventSubscriber) {}

  static async start(sys: TestSystem): Promise<EventTap> {
    const subscriber = createEventSubscriber({
      brokers: (sys.env.KAFKA_BROKERS ?? '').split(','),
      clientId: 'crash-test-tap',
      log: createLogger('tap', 'silent'),
      groupId: `${sys.namespace}-tap`,
      topic: sys.env.PAYMENT_EVENTS_TOPIC ?? '',
    });
    const tap = new EventTap(subscriber);
    await subscriber.run(async (m) => {
      tap.eventIds.push(m.headers['event-id'] ?? '');
    });
    return tap;
  }

  copiesOf(eventId: string): number {
    return this.eventIds.filter((id) => id === eventId).length;
  }

  close(): Promise<void> {
    return this.subscriber.close();
  }
}

interface CreatedLink {
  id: string;
  /** The link's row right after creation: what must still hold once it is paid. */
  amounts: Record<string, unknown>;
  /** The create response, for the merchant's view at the end. */
  view: Record<string, unknown>;
}

const AMOUNT_COLUMNS = 'amount::text, payer_amount::text, merchant_credit::text, platform_revenue::text, fee_bps';

/** One system, one merchant with a webhook receiver answering 200, and the service processes of the test. */
class Harness {
  readonly processes: ServiceProcess[] = [];
  tap: EventTap | undefined;
  private constructor(
    readonly sys: TestSystem,
    readonly receiver: WebhookReceiver,
    /** Wall-clock arrival of each webhook, comparable with Postgres timestamps (same machine). */
    readonly arrivedAt: Map<ReceivedWebhook, number>,
    readonly merchant: TestMerchant,
    readonly shop: TestShop,
  ) {}

  static async start(options: SystemOptions): Promise<Harness> {
    const sys = await startSystem(options);
    const arrivedAt = new Map<ReceivedWebhook, number>();
    const receiver = await WebhookReceiver.start({ onHit: (hit) => arrivedAt.set(hit, Date.now()) });
    try {
      const { merchant, shop } = await sys.merchantWithShop({ webhookUrl: receiver.url, webhookSecret: 'crash-test-secret', feePayer: 'split' });
      return new Harness(sys, receiver, arrivedAt, merchant, shop);
    } catch (e) {
      await receiver.close();
      await sys.stop();
      throw e;
    }
  }

  /** Runs a service from dist/; `info` logs because the "started" line is how it is known to be up. */
  async run(name: ServiceName, env: Record<string, string>): Promise<ServiceProcess> {
    const p = await startServiceProcess(name, { ...this.sys.env, LOG_LEVEL: 'info', ...env });
    this.processes.push(p);
    return p;
  }

  armed(name: ServiceName, point: CrashPointName, env: Record<string, string> = {}): Promise<ServiceProcess> {
    return this.run(name, { ...env, CRASH_AT: point, CRASH_AT_HIT: String(CRASH_HIT) });
  }

  async createLinks(): Promise<CreatedLink[]> {
    const links: CreatedLink[] = [];
    for (let i = 1; i <= LINKS; i++) {
      const res = await this.sys.http.post(
        '/merchant/v1/payment-links',
        { shop_id: this.shop.id, amount: `${100 + i}.37`, order_id: `crash-${i}` },
        { headers: this.merchant.keys },
      );
      expect(res.status).toBe(201);
      const id = res.body.id as string;
      const [amounts] = await this.sys.sql(`SELECT ${AMOUNT_COLUMNS} FROM links.payment_links WHERE id = $1`, [id]);
      links.push({ id, amounts: amounts!, view: res.body });
    }
    return links;
  }

  callback(linkId: string): Promise<number> {
    return this.sys.providerCallback(sandboxPaymentId(linkId), 'paid').then((r) => r.status);
  }

  /**
   * Pays the links before the armed pass one by one, each up to its webhook (so each is a pass of its
   * own at every step), then the rest at once. Returns the status of each link's first callback.
   */
  async payAroundTheCrash(links: CreatedLink[], armed: ServiceProcess): Promise<Map<string, number>> {
    const first = new Map<string, number>();
    for (const link of links.slice(0, CRASH_HIT - 1)) {
      first.set(link.id, await this.callback(link.id));
      expect(first.get(link.id)).toBe(200);
      await within(this.receiver.nthFor(link.id, 1), FIRST_WEBHOOK_BOUND_MS, `webhook of link ${link.id}`, armed);
    }
    const racing = links.slice(CRASH_HIT - 1);
    const statuses = await Promise.all(racing.map((link) => this.callback(link.id)));
    racing.forEach((link, i) => first.set(link.id, statuses[i]!));
    return first;
  }

  /**
   * What a provider does with a callback that did not get a 2xx: sends it again until it does. Only
   * the clean 503 of a dependency that is away is acceptable meanwhile.
   */
  async retryUntilAccepted(links: CreatedLink[], first: Map<string, number>): Promise<void> {
    for (const link of links.filter((l) => first.get(l.id) !== 200)) {
      await settles(async () => {
        const status = await this.callback(link.id);
        expect([200, 503]).toContain(status);
        return status === 200;
      }, `callback of link ${link.id} accepted`);
    }
  }

  /**
   * Every event published, every delivery succeeded, every link's webhook received. Surplus deliveries
   * count as converged, so the checks that follow name them rather than this wait timing out.
   */
  converged(links: CreatedLink[]): Promise<void> {
    return settles(async () => {
      const [outbox] = await this.sys.sql<{ unpublished: string }>('SELECT count(*) AS unpublished FROM links.outbox_pending');
      const [deliveries] = await this.sys.sql<{ all: string; succeeded: string }>(
        `SELECT count(*) AS all, count(*) FILTER (WHERE status = 'succeeded') AS succeeded FROM notifier.deliveries`,
      );
      return (
        Number(outbox?.unpublished) === 0 &&
        Number(deliveries?.all) >= links.length &&
        Number(deliveries?.succeeded) === Number(deliveries?.all) &&
        links.every((l) => this.receiver.hitsFor(l.id).length > 0)
      );
    }, 'every event published, delivered and received');
  }

  /** Unpublished outbox rows, as (event id, link id). */
  unpublished(): Promise<{ id: string; message_key: string }[]> {
    return this.sys.sql('SELECT o.id::text, o.message_key FROM links.outbox o JOIN links.outbox_pending p USING (id)');
  }

  async stop(): Promise<void> {
    for (const p of this.processes) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await p.exited;
    }
    await this.tap?.close();
    await this.receiver.close();
    await this.sys.stop();
  }
}

/** The process died of SIGKILL (its own crash point), not of an error or a clean exit. */
async function expectKilled(p: ServiceProcess, what: string): Promise<void> {
  const code = await within(p.exited, FIRST_WEBHOOK_BOUND_MS, what, p);
  expect({ code, signal: p.child.signalCode }).toEqual({ code: null, signal: 'SIGKILL' });
}

/** States the rules of the schema and of the payment flow allow, checked over every link of the system. */
async function expectNoImpossibleLink(sys: TestSystem): Promise<void> {
  const rows = await sys.sql<{
    id: string;
    status: string;
    paid_at: Date | null;
    gateway_provider: string | null;
    gateway_payment_id: string | null;
    payer_amount: string;
    merchant_credit: string;
    platform_revenue: string;
  }>(
    `SELECT id::text, status, paid_at, gateway_provider, gateway_payment_id,
            payer_amount::text, merchant_credit::text, platform_revenue::text FROM links.payment_links`,
  );
  expect(rows.length).toBeGreaterThan(0);
  const impossible = rows.filter(
    (r) =>
      !LINK_STATUSES.includes(r.status) ||
      (r.status === 'paid') !== (r.paid_at !== null) ||
      (r.status === 'paid' && (r.gateway_provider !== 'sandbox' || r.gateway_payment_id !== sandboxPaymentId(r.id))) ||
      BigInt(r.payer_amount) - BigInt(r.merchant_credit) !== BigInt(r.platform_revenue),
  );
  expect(impossible).toEqual([]);
}

/**
 * The end state: each link paid once at its creation amounts, one published event, one succeeded
 * delivery under that event's webhook id, and the merchant saw only that id for it.
 */
async function expectPaidOnceDeliveredOnce(h: Harness, links: CreatedLink[], receipts: 'exactly-one' | 'repeats-allowed'): Promise<void> {
  const { sys, receiver, merchant } = h;
  await expectNoImpossibleLink(sys);
  const ids = links.map((l) => l.id);
  const outbox = await sys.sql<{ id: string; message_key: string; queued: boolean }>(
    'SELECT o.id::text, o.message_key, EXISTS (SELECT 1 FROM links.outbox_pending p WHERE p.id = o.id) AS queued FROM links.outbox o',
  );
  const deliveries = await sys.sql<{ payment_link_id: string; event_id: string; webhook_id: string; status: string }>(
    'SELECT payment_link_id::text, event_id::text, webhook_id, status FROM notifier.deliveries',
  );
  expect(outbox.map((r) => r.message_key).sort()).toEqual([...ids].sort());
  expect(deliveries.map((d) => d.payment_link_id).sort()).toEqual([...ids].sort());
  for (const link of links) {
    const [row] = await sys.sql(`SELECT status, paid_at, ${AMOUNT_COLUMNS} FROM links.payment_links WHERE id = $1`, [link.id]);
    expect(row).toEqual({ ...link.amounts, status: 'paid', paid_at: expect.any(Date) });
    const read = await sys.http.get(`/merchant/v1/payment-links/${link.id}`, { headers: merchant.keys });
    const { amount, payer_amount, merchant_credit, platform_revenue } = link.view;
    expect(read.body).toMatchObject({ status: 'paid', paid_at: expect.any(String), amount, payer_amount, merchant_credit, platform_revenue });

    const event = outbox.find((r) => r.message_key === link.id)!;
    expect(event.queued).toBe(false);
    const delivery = deliveries.find((d) => d.payment_link_id === link.id)!;
    expect(delivery).toEqual({ payment_link_id: link.id, event_id: event.id, webhook_id: `evt_${event.id}`, status: 'succeeded' });

    const hits = receiver.hitsFor(link.id);
    if (receipts === 'exactly-one') expect(hits).toHaveLength(1);
    else expect(hits.length).toBeGreaterThanOrEqual(1);
    for (const hit of hits) {
      expect({ id: hit.headers['x-webhook-id'], standard: hit.headers['webhook-id'] }).toEqual({
        id: delivery.webhook_id,
        standard: delivery.webhook_id,
      });
    }
  }
}

/** The sum of a Prometheus counter's samples whose labels include `labels`. */

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

it('links killed after a payment commits, before its reply: the provider gets 503 and retries to 200, the link is paid once with one event and one webhook', async () => {
  h = await Harness.start({ withoutLinks: true });
  const armed = await h.armed('links', 'links.after-settle-commit');
  const links = await h.createLinks();

  const first = await h.payAroundTheCrash(links, armed);
  await expectKilled(armed, 'links killed after a settle commit');
  expect([...first.values()].every((s) => s === 200 || s === 503)).toBe(true);
  // The kill fell between the commit and the reply: a link is paid though its provider heard 503.
  const paid = new Set((await h.sys.sql<{ id: string }>("SELECT id::text FROM links.payment_links WHERE status = 'paid'")).map((r) => r.id));
  expect(links.filter((l) => first.get(l.id) === 503 && paid.has(l.id)).length).toBeGreaterThanOrEqual(1);
  await expectNoImpossibleLink(h.sys);

  await h.run('links', {});
  await h.retryUntilAccepted(links, first);
  await h.converged(links);
  await expectPaidOnceDeliveredOnce(h, links, 'exactly-one');
});

it('links killed after Kafka acknowledged an outbox batch, before marking it: the relay publishes it again under the same event ids and the notifier sends one webhook', async () => {
  h = await Harness.start({ withoutLinks: true });
  h.tap = await EventTap.start(h.sys);
  const armed = await h.armed('links', 'links.after-publish-before-mark');
  const links = await h.createLinks();

  const first = await h.payAroundTheCrash(links, armed);
  await expectKilled(armed, 'links killed between publish and mark');
  const unpublished = await h.unpublished();
  expect(unpublished.length).toBeGreaterThanOrEqual(1);
  // The killed batch did reach Kafka: its webhook goes out while no links process runs.
  const receiver = h.receiver;
  await within(Promise.race(unpublished.map((r) => receiver.nthFor(r.message_key, 1))), STEP_BOUND_MS, 'webhook of the killed batch');
  await expectNoImpossibleLink(h.sys);

  await h.run('links', {});
  await h.retryUntilAccepted(links, first);
  await h.converged(links);
  const tap = h.tap;
  const eventIds = (await h.sys.sql<{ id: string }>('SELECT id::text FROM links.outbox')).map((r) => r.id);
  await settles(
    async () => eventIds.every((id) => tap.copiesOf(id) >= 1) && eventIds.some((id) => tap.copiesOf(id) >= 2),
    'every event on Kafka, the killed batch twice',
  );
  // Only rows the killed process left unmarked went out again, each under its own event id.
  const twice = eventIds.filter((id) => tap.copiesOf(id) > 1);
  expect(twice.every((id) => unpublished.some((r) => r.id === id))).toBe(true);
  expect(tap.eventIds.every((id) => eventIds.includes(id))).toBe(true);
  // The notifier took in every copy, so a second webhook would already be in its table.
  await settles(
    async () => (await scrapedSum(h!.sys.notifierOpsPort, 'kafka_consumer_messages_total', { outcome: 'ok' })) === tap.eventIds.length,
    'the notifier consumed every copy',
  );
  await expectPaidOnceDeliveredOnce(h, links, 'exactly-one');
});

it('notifier killed after the merchant answered, before recording it: once the lease runs out the replacement sends the same webhook id again, and the delivery succeeds once', async () => {
  h = await Harness.start({ withoutNotifier: true });
  const armed = await h.armed('notifier', 'notifier.after-send-before-record', SHORT_LEASE_ENV);
  const links = await h.createLinks();

  const first = await h.payAroundTheCrash(links, armed);
  await expectKilled(armed, 'notifier killed after a webhook answered');
  const deliveries = await h.sys.sql<{ id: string; payment_link_id: string; webhook_id: string; status: string; lease_until: Date | null }>(
    'SELECT id::text, payment_link_id::text, webhook_id, status, lease_until FROM notifier.deliveries',
  );
  const receiver = h.receiver;
  // Received by the merchant, yet still pending with no attempt on record.
  const unrecorded = deliveries.filter((d) => d.status === 'pending' && receiver.hitsFor(d.payment_link_id).length > 0);
  expect(unrecorded.length).toBeGreaterThanOrEqual(1);
  const attempts = await h.sys.sql('SELECT delivery_id::text FROM notifier.delivery_attempts WHERE delivery_id = ANY($1::uuid[])', [
    unrecorded.map((d) => d.id),
  ]);
  expect(attempts).toEqual([]);
  await expectNoImpossibleLink(h.sys);

  const replacement = await h.run('notifier', SHORT_LEASE_ENV);
  for (const d of unrecorded) {
    const again = await within(receiver.nthFor(d.payment_link_id, 2), RESEND_BOUND_MS, `second send of ${d.webhook_id}`, replacement);
    expect(again.headers['x-webhook-id']).toBe(d.webhook_id);
    // Not before the dead worker's lease ran out: nobody takes over a live claim.
    expect(h.arrivedAt.get(again)).toBeGreaterThanOrEqual(d.lease_until!.getTime());
  }
  await h.retryUntilAccepted(links, first);
  await h.converged(links);
  await expectPaidOnceDeliveredOnce(h, links, 'repeats-allowed');
});
