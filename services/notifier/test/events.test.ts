import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  EVENT_TYPES,
  formatMoscow,
  subjects,
  webhookEvent,
  type EventType,
  type Identity,
  type ListEventsCommand,
  type PlatformEvent,
  type WebhookEvent,
  type WebhookEventPage,
} from '@pl/contracts';
import { eventually } from '@pl/testing';
import { Receiver } from './receiver';
import { linkIdOf, TestSystem } from './harness';

const SECRET = 'events-secret-ключ';
/** Each event a second after the previous one, so "newest first" has one right answer. */
const at = (second: number): string => formatMoscow(new Date(Date.UTC(2026, 10, 22, 9, 0, second)));

/**
 * Every event type (docs/webhooks.md, "Event types") end to end: taken from Kafka, recorded for the events API whether or
 * not the shop is subscribed, delivered only when it is, in the contract's body shape with event_id = webhook-id.
 */
describe('events: recorded, listed, and delivered by subscription', () => {
  const system = new TestSystem('notifevents');
  const stranger = randomUUID();
  let receiver: Receiver;
  /** A shop as integrated against the contract: the default subscription. */
  let defaultShop: number;
  /** A shop subscribed to every type. */
  let allShop: number;
  let strangerShop: number;
  /** In publishing order (oldest first): one event of each type per shop, live. */
  const live: PlatformEvent[] = [];
  let testEvent: PlatformEvent;
  let strangerEvent: PlatformEvent;

  const list = (identity: Identity, filter: Partial<ListEventsCommand> = {}): Promise<WebhookEventPage> =>
    system.bus!.request(subjects.eventsList, { type: null, shop_id: null, payment_link_id: null, limit: 100, cursor: null, ...filter }, identity);
  const get = (identity: Identity, eventId: string): Promise<WebhookEvent> =>
    system.bus!.request(subjects.eventsGet, { event_id: eventId }, identity);
  const recorded = async (merchantId: string): Promise<number> => {
    const { rows } = await system.pg!.query<{ n: number }>('SELECT count(*)::int AS n FROM notifier.inbox_events WHERE merchant_id = $1', [
      merchantId,
    ]);
    return rows[0]?.n ?? 0;
  };
  const deliveredTypes = async (shopId: number): Promise<string[]> => {
    const { rows } = await system.pg!.query<{ event: string }>('SELECT event FROM notifier.deliveries WHERE shop_id = $1 ORDER BY seq', [shopId]);
    return rows.map((r) => r.event);
  };
  const publicId = (e: PlatformEvent): string => `evt_${e.event_id}`;
  const live_ = system.merchant();
  const test_ = system.merchant(system.merchantId, 'test');

  beforeAll(async () => {
    await system.start();
    await system.linksKnowNoLink();
    receiver = await new Receiver().start();
    defaultShop = await system.createShop(receiver.url, SECRET);
    allShop = await system.createShop(receiver.url, SECRET);
    await system.updateShop(allShop, { webhook_events: [...EVENT_TYPES] });
    strangerShop = await system.createShop(receiver.url, SECRET, stranger);
    let second = 0;
    for (const shopId of [defaultShop, allShop]) {
      for (const type of EVENT_TYPES) live.push(system.anyEvent(type, shopId, { at: at((second += 1)) }));
    }
    testEvent = system.anyEvent('payment.failed', allShop, { mode: 'test', at: at((second += 1)) });
    strangerEvent = system.anyEvent('payment.succeeded', strangerShop, { merchantId: stranger, at: at(second + 1) });
    for (const e of [...live, testEvent, strangerEvent]) await system.publish(e);
    await eventually(
      async () => (await recorded(system.merchantId)) === live.length + 1 && (await recorded(stranger)) === 1,
      'every event recorded',
      20_000,
      25,
    );
    // Every delivery there is ends (the receiver answers 200): 7 + 1 (test) of the shop subscribed to all, 1 of the
    // default shop, 1 of the stranger's.
    await eventually(
      async () => {
        const { rows } = await system.pg!.query<{ n: number }>("SELECT count(*)::int AS n FROM notifier.deliveries WHERE status = 'succeeded'");
        return rows[0]?.n === EVENT_TYPES.length + 3;
      },
      'every subscribed event delivered',
      20_000,
      25,
    );
  });

  afterAll(async () => {
    await receiver?.close();
    await system.stop();
  });

  it('delivers a shop integrated against the contract payment.succeeded only, and a subscribed shop every type', async () => {
    expect(await deliveredTypes(defaultShop)).toEqual(['payment.succeeded']);
    // Events of different links come through different partitions: their deliveries' order is not the publishing order.
    expect((await deliveredTypes(allShop)).sort()).toEqual([...EVENT_TYPES, 'payment.failed'].sort());
    expect(await deliveredTypes(strangerShop)).toEqual(['payment.succeeded']);
  });

  it('sends each type in the contract body, signed, with event_id equal to the webhook id and the type in the headers', async () => {
    const wh = new Webhook(`whsec_${Buffer.from(SECRET, 'utf8').toString('base64')}`);
    const sent = live.filter((e) => e.data.shop_id === allShop);
    for (const e of sent) {
      const hit = receiver.hits.find((h) => h.headers['webhook-id'] === publicId(e));
      expect(hit).toBeDefined();
      const body = webhookEvent.parse(JSON.parse(hit!.body.toString('utf8')));
      expect(body).toEqual({ event: e.event, event_id: publicId(e), created_at: e.occurred_at, livemode: true, data: e.data });
      expect(hit!.headers).toMatchObject({ 'x-webhook-id': body.event_id, 'x-webhook-event': e.event, 'service-event': e.event });
      expect(wh.verify(hit!.body.toString('utf8'), hit!.headers as Record<string, string>)).toEqual(body);
      // The webhook and the events API give the same event.
      await expect(get(live_, body.event_id)).resolves.toEqual(body);
    }
  });

  it('lists every event of the caller’s shops in its mode, subscribed or not, newest first', async () => {
    const page = await list(live_);
    expect(page.events.map((e) => e.event_id)).toEqual(live.map(publicId).reverse());
    expect(page).toMatchObject({ has_more: false, next_cursor: null });
    for (const item of page.events) expect(webhookEvent.safeParse(item).success).toBe(true);
    // An unsubscribed type (no delivery) reads exactly like a delivered one.
    const unsent = live.find((e) => e.data.shop_id === defaultShop && e.event === 'refund.failed')!;
    expect(page.events.find((e) => e.event_id === publicId(unsent))).toEqual({
      event: 'refund.failed',
      event_id: publicId(unsent),
      created_at: unsent.occurred_at,
      livemode: true,
      data: unsent.data,
    });
  });

  it('filters by type, shop and link, each alone and together', async () => {
    const ids = (page: WebhookEventPage): string[] => page.events.map((e) => e.event_id);
    const ofType = (type: EventType) =>
      live
        .filter((e) => e.event === type)
        .map(publicId)
        .reverse();
    expect(ids(await list(live_, { type: 'refund.succeeded' }))).toEqual(ofType('refund.succeeded'));
    expect(ids(await list(live_, { shop_id: defaultShop }))).toEqual(
      live
        .filter((e) => e.data.shop_id === defaultShop)
        .map(publicId)
        .reverse(),
    );
    const one = live[3]!;
    expect(ids(await list(live_, { payment_link_id: linkIdOf(one) }))).toEqual([publicId(one)]);
    expect(ids(await list(live_, { type: one.event, shop_id: one.data.shop_id }))).toEqual([publicId(one)]);
    expect(ids(await list(live_, { type: 'payment.failed', payment_link_id: linkIdOf(one) }))).toEqual(
      one.event === 'payment.failed' ? [publicId(one)] : [],
    );
    // A cashier reads its own shop's events only.
    const cashier: Identity = { ...live_, auth: 'cashier', shop_id: allShop } as Identity;
    expect(ids(await list(cashier))).toEqual(
      live
        .filter((e) => e.data.shop_id === allShop)
        .map(publicId)
        .reverse(),
    );
  });

  it('pages with a keyset cursor through every event exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: WebhookEventPage = await list(live_, { limit: 3, cursor });
      expect(page.events.length).toBeLessThanOrEqual(3);
      seen.push(...page.events.map((e) => e.event_id));
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
      pages += 1;
    } while (cursor !== null);
    expect(seen).toEqual(live.map(publicId).reverse());
    expect(pages).toBe(Math.ceil(live.length / 3));
    await expect(list(live_, { cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'common.err.validation_failed' });
  });

  it('keeps the modes apart: each mode lists and reads only its own events; the other mode’s are not found', async () => {
    expect((await list(test_)).events.map((e) => e.event_id)).toEqual([publicId(testEvent)]);
    await expect(get(test_, publicId(testEvent))).resolves.toMatchObject({ livemode: false, event: 'payment.failed' });
    await expect(get(live_, publicId(testEvent))).rejects.toMatchObject({ kind: 'not_found', code: 'common.err.not_found' });
    await expect(get(test_, publicId(live[0]!))).rejects.toMatchObject({ kind: 'not_found' });
    // Even another merchant's event of the other mode is absent, not forbidden (not found comes first).
    await expect(get(system.merchant(system.merchantId, 'test'), publicId(strangerEvent))).rejects.toMatchObject({ kind: 'not_found' });
    // The other mode's link as a filter is not found, as a read of it is.
    await expect(list(test_, { payment_link_id: linkIdOf(live[0]!) })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('answers 404 for a malformed or unknown id and 403 for another merchant’s event, link or shop', async () => {
    for (const id of ['nope', `evt_${randomUUID()}`, randomUUID(), `evt_${randomUUID().toUpperCase()}`]) {
      await expect(get(live_, id)).rejects.toMatchObject({ kind: 'not_found', code: 'common.err.not_found' });
    }
    await expect(get(live_, publicId(strangerEvent))).rejects.toMatchObject({ kind: 'forbidden', code: 'common.err.forbidden' });
    await expect(get(system.merchant(stranger), publicId(strangerEvent))).resolves.toMatchObject({ event_id: publicId(strangerEvent) });
    await expect(list(live_, { payment_link_id: linkIdOf(strangerEvent) })).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(list(live_, { shop_id: strangerShop })).rejects.toMatchObject({ kind: 'forbidden' });
    expect((await list(live_)).events.some((e) => e.event_id === publicId(strangerEvent))).toBe(false);
    await expect(list(live_, { shop_id: 987_654_321 })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(list(live_, { payment_link_id: randomUUID() })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('follows a change of the subscription at once: the new types are sent, the dropped ones only recorded', async () => {
    const shopId = await system.createShop(receiver.url, SECRET);
    const first = system.anyEvent('payment.succeeded', shopId);
    await system.publish(first);
    expect(await system.settled(first.event_id)).toBe('succeeded');
    // The notifier now holds a copy of the target; the change's notice, sent before the merchant's answer, drops it.
    await system.changeSubscription(shopId, ['payment_link.expired']);
    const expired = system.anyEvent('payment_link.expired', shopId);
    const paid = system.anyEvent('payment.succeeded', shopId);
    await system.publish(paid);
    await system.publish(expired);
    expect(await system.settled(expired.event_id)).toBe('succeeded');
    await eventually(async () => (await get(live_, publicId(paid)).catch(() => null)) !== null, 'the unsent event recorded', 20_000, 25);
    expect(await deliveredTypes(shopId)).toEqual(['payment.succeeded', 'payment_link.expired']);
    expect(await system.delivery(paid.event_id)).toBeUndefined();
  });

  it('skips an event of a type it does not know (a newer producer) without blocking the partition', async () => {
    const shopId = await system.createShop(receiver.url, null);
    const known = system.anyEvent('payment.succeeded', shopId);
    const future = { ...known, event: 'payment.disputed' };
    const key = linkIdOf(known);
    await system.publish(future as unknown as PlatformEvent, JSON.stringify(future), key);
    const sentinel = system.anyEvent('payment.succeeded', shopId, { linkId: key });
    await system.publish(sentinel);
    expect(await system.settled(sentinel.event_id)).toBe('succeeded');
    const { rows } = await system.pg!.query('SELECT 1 FROM notifier.inbox_events WHERE event_id = $1', [future.event_id]);
    expect(rows).toEqual([]);
  });

  it('is for merchants: a platform service is refused', async () => {
    await expect(list({ kind: 'service', service: 'gateway' })).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(get({ kind: 'service', service: 'gateway' }, publicId(live[0]!))).rejects.toMatchObject({ kind: 'forbidden' });
  });
});
