import { randomUUID } from 'node:crypto';
import { subjects, webhookDelivery, type Identity } from '@pl/contracts';
import { Receiver } from './receiver';
import { TestSystem } from './harness';

describe('delivery log over NATS', () => {
  const system = new TestSystem('notiflog');
  const stranger = randomUUID();
  let receiver: Receiver;
  let shopId: number;
  let strangerShop: number;
  const link1 = randomUUID();
  const link2 = randomUUID();
  const strangerLink = randomUUID();
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await system.start();
    await system.linksKnowNoLink();
    receiver = await new Receiver().start();
    shopId = await system.createShop(receiver.url, 'secret');
    strangerShop = await system.createShop(receiver.url, null, stranger);
    const events = [
      system.event(shopId, system.merchantId, link1),
      system.event(shopId, system.merchantId, link2),
      system.event(strangerShop, stranger, strangerLink),
    ];
    for (const e of events) await system.publish(e);
    for (const e of events) {
      await system.settled(e.event_id);
      ids[e.data.payment_link_id] = (await system.delivery(e.event_id))!.id;
    }
  });

  afterAll(async () => {
    await receiver?.close();
    await system.stop();
  });

  const list = (identity: Identity, payment_link_id: string | null, limit = 20, cursor: string | null = null) =>
    system.bus!.request(subjects.deliveriesList, { payment_link_id, shop_id: null, status: null, limit, cursor }, identity);

  it('lists the deliveries of a link with their attempts, in the contract shape', async () => {
    const page = await list(system.merchant(), link1);
    expect(page).toEqual({
      deliveries: [
        {
          id: ids[link1],
          livemode: true,
          webhook_id: expect.stringMatching(/^evt_/) as unknown,
          payment_link_id: link1,
          shop_id: shopId,
          event: 'payment.succeeded',
          status: 'succeeded',
          attempts: [
            {
              attempt: 1,
              at: expect.stringMatching(/\+03:00$/) as unknown,
              status_code: 200,
              error: null,
              duration_ms: expect.any(Number) as unknown,
            },
          ],
          attempts_omitted: 0,
        },
      ],
      has_more: false,
      next_cursor: null,
    });
  });

  it('lists only the caller’s deliveries, newest first, page by page', async () => {
    const first = await list(system.merchant(), null, 1);
    expect(first.has_more).toBe(true);
    const second = await list(system.merchant(), null, 1, first.next_cursor);
    expect(second).toMatchObject({ has_more: false, next_cursor: null });
    const seen = [...first.deliveries, ...second.deliveries].map((d) => d.id);
    expect(seen.sort()).toEqual([ids[link1], ids[link2]].sort());
    const { rows } = await system.pg!.query('SELECT id FROM notifier.deliveries WHERE merchant_id = $1 ORDER BY seq DESC', [system.merchantId]);
    expect([first.deliveries[0]?.id, second.deliveries[0]?.id]).toEqual(rows.map((r: { id: string }) => r.id));
  });

  it('refuses the deliveries of another merchant’s link, a cashier of another shop and a platform identity', async () => {
    await expect(list(system.merchant(), strangerLink)).rejects.toMatchObject({ kind: 'forbidden' });
    const cashier = { ...system.merchant(), auth: 'cashier', shop_id: strangerShop } as Identity;
    await expect(list(cashier, link1)).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(list({ kind: 'service', service: 'gateway' }, null)).rejects.toMatchObject({ kind: 'forbidden' });
  });

  it('answers 404 for a link without deliveries that links does not know either, and refuses a forged cursor', async () => {
    await expect(list(system.merchant(), randomUUID())).rejects.toMatchObject({ kind: 'not_found' });
    await expect(list(system.merchant(), null, 20, 'bm90LW91cnM')).rejects.toMatchObject({ kind: 'validation' });
  });

  it('resends a delivery as a new series numbered from 1 with the same webhook id', async () => {
    const before = receiver.hits.length;
    const reply = await system.bus!.request(subjects.deliveriesResend, { id: ids[link1]! }, system.merchant());
    expect(webhookDelivery.parse(reply)).toMatchObject({ id: ids[link1], status: 'pending' });
    const hit = await receiver.nth(before + 1);
    expect(hit.headers['x-webhook-id']).toBe(reply.webhook_id);
    expect(hit.headers['x-webhook-attempt']).toBe('1');
    const { rows } = await system.pg!.query('SELECT event_id FROM notifier.deliveries WHERE id = $1', [ids[link1]]);
    expect(await system.settled((rows[0] as { event_id: string }).event_id)).toBe('succeeded');
    const [after] = (await list(system.merchant(), link1)).deliveries;
    expect(after?.attempts.map((a) => a.attempt)).toEqual([1, 1]);
  });

  it('refuses to resend another merchant’s delivery and answers not_found for an unknown one', async () => {
    await expect(system.bus!.request(subjects.deliveriesResend, { id: ids[strangerLink]! }, system.merchant())).rejects.toMatchObject({
      kind: 'forbidden',
    });
    await expect(system.bus!.request(subjects.deliveriesResend, { id: randomUUID() }, system.merchant())).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('shows the newest 20 attempts of a long history and counts the older ones, in the list and the resend reply', async () => {
    const failing = await new Receiver(() => ({ status: 500 })).start();
    try {
      const event = system.event(await system.createShop(failing.url, null));
      await system.publish(event);
      expect(await system.settled(event.event_id)).toBe('failed');
      const id = (await system.delivery(event.event_id))!.id;
      // Two resends: three failed series of 8, 24 attempts in all.
      for (let series = 2; series <= 3; series += 1) {
        const reply = await system.bus!.request(subjects.deliveriesResend, { id }, system.merchant());
        // The earlier series at least (the new series' first attempt may already be logged when the reply is read).
        expect(webhookDelivery.parse(reply).attempts_omitted + reply.attempts.length).toBeGreaterThanOrEqual(8 * (series - 1));
        expect(await system.settled(event.event_id)).toBe('failed');
      }
      expect(await system.attempts(event.event_id)).toHaveLength(24);

      const [delivery] = (await list(system.merchant(), event.data.payment_link_id)).deliveries;
      expect(delivery?.attempts).toHaveLength(20);
      expect(delivery?.attempts_omitted).toBe(4);
      // The newest, oldest first: attempts 5..8 of the first series, then the two resent series.
      expect(delivery?.attempts.map((a) => a.attempt)).toEqual([5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8]);
      expect(delivery?.attempts.every((a) => a.status_code === 500)).toBe(true);
    } finally {
      await failing.close();
    }
  });

  describe('filters by shop and status', () => {
    const listBy = (
      identity: Identity,
      filter: { shop_id?: number; status?: 'pending' | 'succeeded' | 'failed' },
      limit = 20,
      cursor: string | null = null,
    ) =>
      system.bus!.request(
        subjects.deliveriesList,
        { payment_link_id: null, shop_id: filter.shop_id ?? null, status: filter.status ?? null, limit, cursor },
        identity,
      );
    /** The caller's deliveries as the table holds them, newest first. */
    const stored = async (where: string, params: unknown[]): Promise<string[]> => {
      const { rows } = await system.pg!.query<{ id: string }>(
        `SELECT id FROM notifier.deliveries WHERE merchant_id = $1 AND ${where} ORDER BY seq DESC`,
        [system.merchantId, ...params],
      );
      return rows.map((r) => r.id);
    };
    let failingShop: number;

    beforeAll(async () => {
      const failing = await new Receiver(() => ({ status: 500 })).start();
      try {
        failingShop = await system.createShop(failing.url, null);
        const event = system.event(failingShop);
        await system.publish(event);
        expect(await system.settled(event.event_id)).toBe('failed');
      } finally {
        await failing.close();
      }
    });

    it('lists one shop’s deliveries, one status’s, or both at once, newest first', async () => {
      const ofShop = await listBy(system.merchant(), { shop_id: shopId });
      expect(ofShop.deliveries.map((d) => d.id)).toEqual(await stored('shop_id = $2', [shopId]));
      expect(ofShop.deliveries.every((d) => d.shop_id === shopId)).toBe(true);
      expect(ofShop.deliveries.length).toBeGreaterThanOrEqual(2);

      const failed = await listBy(system.merchant(), { status: 'failed' });
      expect(failed.deliveries.map((d) => d.id)).toEqual(await stored("status = 'failed'", []));
      expect(failed.deliveries.map((d) => d.shop_id)).toContain(failingShop);
      expect(failed.deliveries.every((d) => d.status === 'failed')).toBe(true);

      const both = await listBy(system.merchant(), { shop_id: failingShop, status: 'failed' });
      expect(both.deliveries.map((d) => d.id)).toEqual(await stored("shop_id = $2 AND status = 'failed'", [failingShop]));
      expect(both.deliveries).toHaveLength(1);
      await expect(listBy(system.merchant(), { shop_id: failingShop, status: 'succeeded' })).resolves.toMatchObject({ deliveries: [] });
    });

    it('pages a filtered list without leaving the filter', async () => {
      const all = await stored('shop_id = $2', [shopId]);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await listBy(system.merchant(), { shop_id: shopId }, 1, cursor);
        seen.push(...page.deliveries.map((d) => d.id));
        cursor = page.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual(all);
    });

    it('refuses a filter by another merchant’s shop and a cashier’s filter by another shop, and an unknown shop (404)', async () => {
      // strangerShop has deliveries; a stranger's shop without any is refused just the same (the shops service decides).
      await expect(listBy(system.merchant(), { shop_id: strangerShop })).rejects.toMatchObject({ kind: 'forbidden' });
      const quiet = await system.createShop(null, null, stranger);
      await expect(listBy(system.merchant(), { shop_id: quiet })).rejects.toMatchObject({ kind: 'forbidden' });
      const cashier = { ...system.merchant(), auth: 'cashier', shop_id: shopId } as Identity;
      await expect(listBy(cashier, { shop_id: failingShop })).rejects.toMatchObject({ kind: 'forbidden' });
      await expect(listBy(cashier, { shop_id: shopId, status: 'failed' })).resolves.toMatchObject({ deliveries: [] });
      // As every list answers a filter that names nothing.
      await expect(listBy(system.merchant(), { shop_id: 999_999_999 })).rejects.toMatchObject({ kind: 'not_found' });
    });
  });
});
