import { createHmac, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { subjects, webhookDelivery, type Identity, type Mode, type PaymentSucceededEvent, type WebhookDeliveryList } from '@pl/contracts';
import { scrapeMetrics } from './metrics';
import { Receiver, type Hit } from './receiver';
import { TestSystem } from './harness';

const SECRET = 'mode-secret-ключ';
const MODES = ['live', 'test'] as const;
const other = (mode: Mode): Mode => (mode === 'live' ? 'test' : 'live');

/** Test mode (docs/test-mode.md): two worlds of deliveries, side by side in one table, for the same merchant and shops. */
describe('deliveries in live and test mode', () => {
  const system = new TestSystem('notifmode');
  const stranger = randomUUID();
  let receiver: Receiver;
  let failing: Receiver;
  let shopId: number;
  let failingShop: number;
  /** Per mode: the merchant's payment events (one to a shop that answers, one to a shop that fails) and the stranger's. */
  const events = {} as Record<Mode, { ok: PaymentSucceededEvent; failed: PaymentSucceededEvent; stranger: PaymentSucceededEvent }>;
  /** Per mode, the delivery id of each of those events, and of a webhook.test sent in that mode. */
  const ids = {} as Record<Mode, { ok: string; failed: string; stranger: string; test: string }>;

  const list = (
    mode: Mode,
    filter: { payment_link_id?: string; shop_id?: number; status?: 'pending' | 'succeeded' | 'failed' } = {},
    limit = 20,
    cursor: string | null = null,
  ): Promise<WebhookDeliveryList> =>
    system.bus!.request(
      subjects.deliveriesList,
      { payment_link_id: filter.payment_link_id ?? null, shop_id: filter.shop_id ?? null, status: filter.status ?? null, limit, cursor },
      system.merchant(system.merchantId, mode),
    );
  const resend = (identity: Identity, id: string) => system.bus!.request(subjects.deliveriesResend, { id }, identity);
  /** The merchant's deliveries of `mode` as the table holds them, newest first. */
  const stored = async (mode: Mode, where = 'true', params: unknown[] = []): Promise<string[]> => {
    const { rows } = await system.pg!.query<{ id: string }>(
      `SELECT id FROM notifier.deliveries WHERE merchant_id = $1 AND livemode = $2 AND ${where} ORDER BY seq DESC`,
      [system.merchantId, mode === 'live', ...params],
    );
    return rows.map((r) => r.id);
  };
  const hitOf = (event: PaymentSucceededEvent): Hit => {
    const hit = receiver.hits.find((h) => h.headers['x-webhook-id'] === `evt_${event.event_id}`);
    if (!hit) throw new Error(`no webhook for ${event.event_id}`);
    return hit;
  };

  beforeAll(async () => {
    await system.start();
    await system.linksKnowNoLink();
    receiver = await new Receiver().start();
    failing = await new Receiver(() => ({ status: 500 })).start();
    shopId = await system.createShop(receiver.url, SECRET);
    failingShop = await system.createShop(failing.url, SECRET);
    const strangerShop = await system.createShop(receiver.url, SECRET, stranger);
    for (const mode of MODES) {
      events[mode] = {
        ok: system.event(shopId, system.merchantId, randomUUID(), mode),
        failed: system.event(failingShop, system.merchantId, randomUUID(), mode),
        stranger: system.event(strangerShop, stranger, randomUUID(), mode),
      };
    }
    for (const mode of MODES) for (const e of Object.values(events[mode])) await system.publish(e);
    for (const mode of MODES) {
      const { ok, failed, stranger: theirs } = events[mode];
      expect(await system.settled(ok.event_id)).toBe('succeeded');
      expect(await system.settled(failed.event_id)).toBe('failed');
      expect(await system.settled(theirs.event_id)).toBe('succeeded');
      const test = await system.bus!.request(subjects.deliveriesTest, { shop_id: shopId }, system.merchant(system.merchantId, mode));
      expect(await system.settledById(test.id)).toBe('succeeded');
      ids[mode] = {
        ok: (await system.delivery(ok.event_id))!.id,
        failed: (await system.delivery(failed.event_id))!.id,
        stranger: (await system.delivery(theirs.event_id))!.id,
        test: test.id,
      };
    }
  });

  afterAll(async () => {
    await receiver?.close();
    await failing?.close();
    await system.stop();
  });

  it.each([
    ['test', false],
    ['live', true],
  ] as const)('sends a %s payment with "livemode": %s before "data", signed with the shop’s secret', async (mode, livemode) => {
    const event = events[mode].ok;
    const hit = hitOf(event);
    const body = JSON.parse(hit.body.toString('utf8')) as Record<string, unknown>;
    expect(body).toEqual({
      event: 'payment.succeeded',
      event_id: `evt_${event.event_id}`,
      created_at: event.occurred_at,
      livemode,
      data: event.data,
    });
    expect(Object.keys(body)).toEqual(['event', 'event_id', 'created_at', 'livemode', 'data']);
    expect(hit.headers['x-webhook-signature']).toBe(createHmac('sha256', SECRET).update(hit.body).digest('hex'));
    const wh = new Webhook(`whsec_${Buffer.from(SECRET, 'utf8').toString('base64')}`);
    expect(wh.verify(hit.body.toString('utf8'), hit.headers as Record<string, string>)).toEqual(body);
    const { rows } = await system.pg!.query('SELECT livemode FROM notifier.deliveries WHERE event_id = $1', [event.event_id]);
    expect(rows).toEqual([{ livemode }]);
  });

  it('sends a webhook.test with the caller’s mode in its body and its log entry', async () => {
    for (const mode of MODES) {
      const sent = receiver.hits.find(
        (h) => h.headers['x-webhook-event'] === 'webhook.test' && JSON.parse(h.body.toString('utf8')).livemode === (mode === 'live'),
      );
      expect(sent).toBeDefined();
      const [logged] = (await list(mode, { shop_id: shopId })).deliveries.filter((d) => d.id === ids[mode].test);
      expect(webhookDelivery.parse(logged)).toMatchObject({ event: 'webhook.test', livemode: mode === 'live', payment_link_id: null });
    }
    const bodies = receiver.hits
      .filter((h) => h.headers['x-webhook-event'] === 'webhook.test')
      .map((h) => JSON.parse(h.body.toString('utf8')) as object);
    expect(bodies.map((b) => Object.keys(b))).toEqual([
      ['event', 'event_id', 'created_at', 'livemode', 'data'],
      ['event', 'event_id', 'created_at', 'livemode', 'data'],
    ]);
  });

  describe.each(MODES)('a %s caller', (mode) => {
    const own = (): string[] => [ids[mode].ok, ids[mode].failed, ids[mode].test];
    const theirs = (): string[] => [ids[other(mode)].ok, ids[other(mode)].failed, ids[other(mode)].test];

    it('lists its own mode’s deliveries only, each saying so', async () => {
      const page = await list(mode);
      expect(page.deliveries.map((d) => d.id)).toEqual(await stored(mode));
      expect(page.deliveries.map((d) => d.id).sort()).toEqual(own().sort());
      expect(page.deliveries.every((d) => d.livemode === (mode === 'live'))).toBe(true);
    });

    it('knows no link of the other mode, not even another merchant’s (not found, as a read of it answers)', async () => {
      expect((await list(mode, { payment_link_id: events[mode].ok.data.payment_link_id })).deliveries.map((d) => d.id)).toEqual([ids[mode].ok]);
      await expect(list(mode, { payment_link_id: events[other(mode)].ok.data.payment_link_id })).rejects.toMatchObject({ kind: 'not_found' });
      await expect(list(mode, { payment_link_id: events[other(mode)].stranger.data.payment_link_id })).rejects.toMatchObject({ kind: 'not_found' });
      // Another merchant's link of the caller's own mode is still refused: the mode is checked first, not instead.
      await expect(list(mode, { payment_link_id: events[mode].stranger.data.payment_link_id })).rejects.toMatchObject({ kind: 'forbidden' });
    });

    it('lists a shop’s deliveries of its own mode only, the shop being shared by both', async () => {
      const ofShop = await list(mode, { shop_id: shopId });
      expect(ofShop.deliveries.map((d) => d.id)).toEqual(await stored(mode, 'shop_id = $3', [shopId]));
      expect(ofShop.deliveries.map((d) => d.id).sort()).toEqual([ids[mode].ok, ids[mode].test].sort());
    });

    it('lists a status’s deliveries of its own mode only', async () => {
      const failed = await list(mode, { status: 'failed' });
      expect(failed.deliveries.map((d) => d.id)).toEqual([ids[mode].failed]);
      const both = await list(mode, { shop_id: failingShop, status: 'failed' });
      expect(both.deliveries.map((d) => d.id)).toEqual([ids[mode].failed]);
      expect((await list(mode, { status: 'succeeded' })).deliveries.map((d) => d.id)).toEqual(await stored(mode, "status = 'succeeded'"));
    });

    it('pages through its own mode only', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: WebhookDeliveryList = await list(mode, {}, 1, cursor);
        seen.push(...page.deliveries.map((d) => d.id));
        cursor = page.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual(await stored(mode));
      expect(seen.filter((id) => theirs().includes(id))).toEqual([]);
    });

    it('cannot resend a delivery of the other mode (404, even another merchant’s), and resends its own', async () => {
      const identity = system.merchant(system.merchantId, mode);
      const refused = [...theirs(), ids[other(mode)].stranger];
      const series = async (): Promise<number[]> =>
        (
          await system.pg!.query<{ series: number }>('SELECT series FROM notifier.deliveries WHERE id = ANY($1::uuid[]) ORDER BY id', [refused])
        ).rows.map((r) => r.series);
      const before = await series();
      for (const id of refused) {
        await expect(resend(identity, id)).rejects.toMatchObject({ kind: 'not_found', code: 'common.err.not_found' });
      }
      expect(await series()).toEqual(before);
      // Another merchant's delivery of the caller's own mode stays forbidden.
      await expect(resend(identity, ids[mode].stranger)).rejects.toMatchObject({ kind: 'forbidden' });

      const hits = receiver.hits.length;
      const reply = webhookDelivery.parse(await resend(identity, ids[mode].ok));
      expect(reply).toMatchObject({ id: ids[mode].ok, livemode: mode === 'live', status: 'pending' });
      const again = await receiver.nth(hits + 1);
      expect(again.body.equals(hitOf(events[mode].ok).body)).toBe(true);
      expect(await system.settled(events[mode].ok.event_id)).toBe('succeeded');
    });
  });

  it('labels the delivery metrics with the mode', async () => {
    const metrics = await scrapeMetrics(system.notifier!.opsPort);
    for (const mode of MODES) {
      expect(metrics.sum('webhook_attempts_total', { mode, outcome: 'succeeded' })).toBeGreaterThanOrEqual(2);
      // The failing shop's delivery used up its 8 attempts in each mode.
      expect(metrics.sum('webhook_attempts_total', { mode, outcome: 'http_5xx' })).toBe(8);
      expect(metrics.sum('webhook_deliveries_exhausted_total', { mode })).toBe(1);
      expect(metrics.series('webhook_queue_depth', { mode, state: 'due' })).toHaveLength(1);
      expect(metrics.series('webhook_queue_oldest_due_age_seconds', { mode })).toHaveLength(1);
    }
  });
});
