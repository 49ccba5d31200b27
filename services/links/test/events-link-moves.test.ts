import { createHash, randomUUID } from 'node:crypto';
import pino from 'pino';
import { subjects, type IdempotencyClaim, type Identity, type PaymentLink, type PaymentLinkPage } from '@pl/contracts';
import { Db } from '@pl/db';
import { LinkRepository } from '../src/data/link.repository';
import { LINKS_SCHEMA } from '../src/data/migrate';
import type { OutboxEntry } from '../src/domain/link';
import { LINKS_OWN_MODE } from '../src/domain/ports';
import { recordTopic, type TopicRecorder } from './support/kafka-events';
import { apiKey, startLinksSystem, testKey, type LinksSystem } from './support/links-system';
import { eventTypesOf, outboxEventsOf } from './support/outbox-events';

// A Kafka consumer group's first join takes about three seconds on the mock cluster.
jest.setTimeout(60_000);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const cancelClaim = (key: string, linkId: string): IdempotencyClaim => ({
  route: 'merchant-v1-cancel',
  key_sha256: sha256(key),
  fingerprint: sha256(linkId),
});

describe('every link move writes exactly one event, with the move', () => {
  let system: LinksSystem;
  let kafka: TopicRecorder;
  let sweeperDb: Db;
  /** The sweeper's statement, run by the test; what it hands the relay is kept in `handedOver`. */
  let sweeper: LinkRepository;
  const handedOver: OutboxEntry[] = [];
  const merchant = randomUUID();
  let shopId: number;

  const newLink = (identity: Identity = apiKey(merchant)): Promise<PaymentLink> =>
    system.createLink(identity, { shop_id: shopId, amount_kopecks: 150000, order_id: 'order-ev' });
  const getLink = (id: string, identity: Identity = apiKey(merchant)): Promise<PaymentLink> =>
    system.bus.request(subjects.linksGet, { id }, identity);
  const makeDue = (ids: string[]): Promise<unknown> =>
    system.linksDb.query(
      "UPDATE payment_links SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])",
      [ids],
    );
  const eventsOf = (id: string) => outboxEventsOf(system.linksDb, id);

  /** The data every link event carries, for a link of this test as the move left it. */
  const linkData = (link: PaymentLink) => ({
    payment_link_id: link.id,
    id: link.id,
    shop_id: shopId,
    order_id: 'order-ev',
    amount: '1500.00',
    merchant_credit: link.merchant_credit,
  });

  beforeAll(async () => {
    // No poll and no sweep of the service's own: an event reaches Kafka only through the hand-over of the move that wrote it.
    system = await startLinksSystem('linksevents', { OUTBOX_POLL_INTERVAL_MS: '600000', EXPIRY_SWEEP_INTERVAL_MS: '3600000' });
    kafka = await recordTopic(system.topic);
    sweeperDb = new Db({ url: system.databaseUrl, schema: LINKS_SCHEMA, log: pino({ level: 'silent' }) });
    sweeper = new LinkRepository(sweeperDb, (entry) => handedOver.push(entry), system.topic);
    shopId = await system.createShop(merchant, { crypto_bps: 100 });
  });

  afterAll(async () => {
    await kafka?.close();
    await sweeperDb?.close();
    await system?.stop();
  });

  it('cancel: one payment_link.canceled, canceled_at the move, published at once through the hand-over', async () => {
    const link = await newLink();
    const canceled: PaymentLink = await system.bus.request(subjects.linksCancel, { id: link.id }, apiKey(merchant));
    const [written, ...more] = await eventsOf(link.id);
    expect(more).toEqual([]);
    expect(written?.headers).toEqual({ 'event-id': written?.id, 'event-type': 'payment_link.canceled', 'content-type': 'application/json' });
    expect(written?.event).toEqual({
      event_id: written?.id,
      event: 'payment_link.canceled',
      occurred_at: canceled.updated_at,
      merchant_id: merchant,
      livemode: true,
      data: { ...linkData(link), status: 'canceled', canceled_at: canceled.updated_at },
    });
    expect(canceled.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+03:00$/);
    const published = await kafka.waitForKey(link.id);
    expect(published.headers['event-id']).toBe(written?.id);
    expect(JSON.parse(published.value ?? '')).toEqual(written?.event);
  });

  it('a refused cancel (the link has moved) writes nothing', async () => {
    const link = await newLink();
    await system.bus.request(subjects.linksCancel, { id: link.id }, apiKey(merchant));
    await expect(system.bus.request(subjects.linksCancel, { id: link.id }, apiKey(merchant))).rejects.toMatchObject({
      code: 'payment_link.err.not_pending',
    });
    expect(await eventTypesOf(system.linksDb, link.id)).toEqual(['payment_link.canceled']);
  });

  it('keyed cancel: one event with the kept answer; a replay and 20 concurrent retries write none more', async () => {
    const link = await newLink();
    const key = cancelClaim(`events-${link.id}`, link.id);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => system.bus.request(subjects.linksCancelOnce, { id: link.id, idempotency: key }, apiKey(merchant))),
    );
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    const again = await system.bus.request(subjects.linksCancelOnce, { id: link.id, idempotency: key }, apiKey(merchant));
    expect(again.replayed).toBe(true);
    const [written, ...more] = await eventsOf(link.id);
    expect(more).toEqual([]);
    expect(written?.event).toEqual({
      event_id: written?.id,
      event: 'payment_link.canceled',
      occurred_at: again.link.updated_at,
      merchant_id: merchant,
      livemode: true,
      data: { ...linkData(link), status: 'canceled', canceled_at: again.link.updated_at },
    });
    await expect(kafka.waitForKey(link.id)).resolves.toMatchObject({ headers: { 'event-id': written?.id } });
  });

  it('a plain and a keyed cancel racing: one wins, one event', async () => {
    for (let round = 0; round < 10; round += 1) {
      const link = await newLink();
      const key = cancelClaim(`race-${link.id}`, link.id);
      const results = await Promise.allSettled([
        system.bus.request(subjects.linksCancel, { id: link.id }, apiKey(merchant)),
        system.bus.request(subjects.linksCancelOnce, { id: link.id, idempotency: key }, apiKey(merchant)),
        system.bus.request(subjects.linksCancel, { id: link.id }, apiKey(merchant)),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
      expect({ round, types: await eventTypesOf(system.linksDb, link.id) }).toEqual({ round, types: ['payment_link.canceled'] });
    }
  });

  it('expire on read: one payment_link.expired, expired_at the move; reading again writes none', async () => {
    const link = await newLink();
    await makeDue([link.id]);
    const expired = await getLink(link.id);
    expect(expired.status).toBe('expired');
    await expect(getLink(link.id)).resolves.toEqual(expired);
    const [written, ...more] = await eventsOf(link.id);
    expect(more).toEqual([]);
    expect(written?.event).toEqual({
      event_id: written?.id,
      event: 'payment_link.expired',
      occurred_at: expired.updated_at,
      merchant_id: merchant,
      livemode: true,
      data: { ...linkData(link), status: 'expired', expired_at: expired.updated_at },
    });
    await expect(kafka.waitForKey(link.id)).resolves.toMatchObject({ headers: { 'event-id': written?.id, 'event-type': 'payment_link.expired' } });
  });

  it("a list's expiry of the merchant's due links: one event per link, none again on the next list", async () => {
    const links = await Promise.all([newLink(), newLink(), newLink()]);
    const ids = links.map((l) => l.id);
    await makeDue(ids);
    const page: PaymentLinkPage = await system.bus.request(
      subjects.linksList,
      { status: 'expired', shop_id: null, order_id: null, limit: 100, cursor: null },
      apiKey(merchant),
    );
    const listed = page.payment_links.filter((l) => ids.includes(l.id));
    expect(listed.map((l) => l.status)).toEqual(['expired', 'expired', 'expired']);
    await system.bus.request(subjects.linksList, { status: null, shop_id: null, order_id: null, limit: 100, cursor: null }, apiKey(merchant));
    for (const link of listed) {
      const events = await eventsOf(link.id);
      expect(events.map((e) => e.event)).toEqual([
        {
          event_id: events[0]?.id,
          event: 'payment_link.expired',
          occurred_at: link.updated_at,
          merchant_id: merchant,
          livemode: true,
          data: { ...linkData(link), status: 'expired', expired_at: link.updated_at },
        },
      ]);
    }
    await Promise.all(ids.map((id) => kafka.waitForKey(id)));
  });

  it("the sweeper's batch: one event per link it expired, in its transaction, each handed to the relay", async () => {
    const due = await Promise.all(Array.from({ length: 5 }, () => newLink()));
    const notDue = await newLink();
    await makeDue(due.map((l) => l.id));
    handedOver.length = 0;
    const swept = await sweeper.expireDueBatch(1000, LINKS_OWN_MODE);
    expect([...swept].sort()).toEqual(due.map((l) => l.id).sort());
    expect(await sweeper.expireDueBatch(1000, LINKS_OWN_MODE)).toEqual([]);
    for (const link of due) {
      const expired = await getLink(link.id);
      const [written, ...more] = await eventsOf(link.id);
      expect(more).toEqual([]);
      expect(written?.event).toEqual({
        event_id: written?.id,
        event: 'payment_link.expired',
        occurred_at: expired.updated_at,
        merchant_id: merchant,
        livemode: true,
        data: { ...linkData(link), status: 'expired', expired_at: expired.updated_at },
      });
      expect(handedOver.filter((e) => e.key === link.id).map((e) => e.id)).toEqual([written?.id]);
    }
    expect(handedOver).toHaveLength(5);
    expect(await eventsOf(notDue.id)).toEqual([]);
  });

  it('expiry racing from every side (the sweeper, a list, reads, a cancel) writes one event per link', async () => {
    const links = await Promise.all(Array.from({ length: 10 }, () => newLink()));
    const ids = links.map((l) => l.id);
    await makeDue(ids);
    await Promise.allSettled([
      sweeper.expireDueBatch(1000, LINKS_OWN_MODE),
      system.bus.request(subjects.linksList, { status: 'expired', shop_id: null, order_id: null, limit: 100, cursor: null }, apiKey(merchant)),
      ...ids.map((id) => getLink(id)),
      ...ids.map((id) => system.bus.request(subjects.linksCancel, { id }, apiKey(merchant))),
      sweeper.expireDueBatch(1000, LINKS_OWN_MODE),
    ]);
    for (const id of ids) expect({ id, types: await eventTypesOf(system.linksDb, id) }).toEqual({ id, types: ['payment_link.expired'] });
  });

  it('carries the mode: a test link moves with livemode false events, a live list leaves it alone', async () => {
    const canceled = await newLink(testKey(merchant));
    await system.bus.request(subjects.linksCancel, { id: canceled.id }, testKey(merchant));
    expect((await eventsOf(canceled.id)).map((e) => [e.event.event, e.event.livemode])).toEqual([['payment_link.canceled', false]]);
    const raw = await system.linksDb.query<{ livemode: unknown }>("SELECT payload->'livemode' AS livemode FROM outbox WHERE message_key = $1", [
      canceled.id,
    ]);
    // Written, not the contract's default for events older than test mode.
    expect(raw).toEqual([{ livemode: false }]);

    const due = await newLink(testKey(merchant));
    await makeDue([due.id]);
    await system.bus.request(subjects.linksList, { status: 'expired', shop_id: null, order_id: null, limit: 100, cursor: null }, apiKey(merchant));
    expect(await eventsOf(due.id)).toEqual([]);
    await system.bus.request(subjects.linksList, { status: 'expired', shop_id: null, order_id: null, limit: 100, cursor: null }, testKey(merchant));
    expect((await eventsOf(due.id)).map((e) => [e.event.event, e.event.livemode])).toEqual([['payment_link.expired', false]]);
  });
});
