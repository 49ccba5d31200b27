import { randomUUID } from 'node:crypto';
import { subjects, type Identity, type ListLinksCommand, type PaymentLinkPage } from '@pl/contracts';
import { apiKey, cashier, platform, startLinksSystem, type LinksSystem } from './support/links-system';

describe('links.get and links.list', () => {
  let system: LinksSystem;

  const list = (identity: Identity, query: Partial<ListLinksCommand> = {}): Promise<PaymentLinkPage> =>
    system.bus.request(subjects.linksList, { limit: 20, cursor: null, status: null, shop_id: null, order_id: null, ...query }, identity);

  /** Every page of a listing, following next_cursor until has_more is false. */
  const listAll = async (identity: Identity, query: Partial<ListLinksCommand>): Promise<PaymentLinkPage[]> => {
    const pages: PaymentLinkPage[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(identity, { ...query, cursor });
      pages.push(page);
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
    } while (cursor !== null);
    return pages;
  };

  /** Moves a link's expiry into the past, as if its lifetime had elapsed. */
  const makeDue = (id: string) =>
    system.linksDb.query("UPDATE payment_links SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE id = $1", [
      id,
    ]);

  beforeAll(async () => {
    system = await startLinksSystem('linksread');
  });

  afterAll(async () => {
    await system?.stop();
  });

  describe('get', () => {
    const merchant = randomUUID();
    let shopId: number;

    beforeAll(async () => {
      shopId = await system.createShop(merchant);
    });

    it('returns the same object creation returned', async () => {
      const created = await system.createLink(apiKey(merchant), { shop_id: shopId, order_id: 'g-1' });
      await expect(system.bus.request(subjects.linksGet, { id: created.id }, apiKey(merchant))).resolves.toEqual(created);
    });

    it("answers 403 for another merchant's link", async () => {
      const created = await system.createLink(apiKey(merchant), { shop_id: shopId });
      await expect(system.bus.request(subjects.linksGet, { id: created.id }, apiKey(randomUUID()))).rejects.toMatchObject({
        code: 'common.err.forbidden',
      });
    });

    it('answers 404 for an unknown link', async () => {
      await expect(system.bus.request(subjects.linksGet, { id: randomUUID() }, apiKey(merchant))).rejects.toMatchObject({
        code: 'common.err.not_found',
        message: 'Payment link not found',
      });
    });

    it("lets a cashier key read its own shop's links only", async () => {
      const otherShop = await system.createShop(merchant);
      const own = await system.createLink(apiKey(merchant), { shop_id: shopId });
      const foreign = await system.createLink(apiKey(merchant), { shop_id: otherShop });
      await expect(system.bus.request(subjects.linksGet, { id: own.id }, cashier(merchant, shopId))).resolves.toEqual(own);
      await expect(system.bus.request(subjects.linksGet, { id: foreign.id }, cashier(merchant, shopId))).rejects.toMatchObject({
        code: 'common.err.forbidden',
      });
    });

    it('refuses a platform service identity', async () => {
      const created = await system.createLink(apiKey(merchant), { shop_id: shopId });
      await expect(system.bus.request(subjects.linksGet, { id: created.id }, platform)).rejects.toMatchObject({
        code: 'common.err.forbidden',
      });
    });

    it('never reads a pending link past its expiry as pending', async () => {
      const created = await system.createLink(apiKey(merchant), { shop_id: shopId });
      await makeDue(created.id);
      const read = await system.bus.request(subjects.linksGet, { id: created.id }, apiKey(merchant));
      expect(read.status).toBe('expired');
      expect(read.updated_at >= created.updated_at).toBe(true);
    });
  });

  describe('list', () => {
    it('pages newest first across pages without gaps or duplicates', async () => {
      const merchant = randomUUID();
      const shopId = await system.createShop(merchant);
      const created: string[] = [];
      for (let i = 0; i < 7; i += 1) created.push((await system.createLink(apiKey(merchant), { shop_id: shopId })).id);

      const pages = await listAll(apiKey(merchant), { limit: 3 });
      expect(pages.map((p) => p.payment_links.length)).toEqual([3, 3, 1]);
      expect(pages.flatMap((p) => p.payment_links.map((l) => l.id))).toEqual([...created].reverse());
      // The links cross the bus once; the gateway adds the `payments` alias.
      const raw = await system.bus.requestJson(
        subjects.linksList,
        { limit: 3, cursor: null, status: null, shop_id: null, order_id: null },
        apiKey(merchant),
      );
      expect(Object.keys(JSON.parse(raw.toString('utf8')) as object)).toEqual(['has_more', 'next_cursor', 'payment_links']);
      expect(pages[2]?.next_cursor).toBeNull();
    });

    it('orders links created in the same instant by id and keeps microsecond precision in the cursor', async () => {
      const merchant = randomUUID();
      const shopId = await system.createShop(merchant);
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await system.createLink(apiKey(merchant), { shop_id: shopId })).id);
      // Offsets in microseconds within one millisecond; two links share one instant.
      const offsets = [1, 1, 2, 3, 3];
      for (const [i, id] of ids.entries()) {
        await system.linksDb.query(
          `UPDATE payment_links SET created_at = date_trunc('second', now()) - interval '1 hour' + $2::int * interval '1 microsecond'
            WHERE id = $1`,
          [id, offsets[i]],
        );
      }
      const expected = ids
        .map((id, i) => ({ id, at: offsets[i] ?? 0 }))
        .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
        .map((x) => x.id);

      for (const limit of [1, 2]) {
        const pages = await listAll(apiKey(merchant), { limit });
        expect(pages.flatMap((p) => p.payment_links.map((l) => l.id))).toEqual(expected);
      }
    });

    it('filters by status, shop and order id, always within the caller', async () => {
      const merchant = randomUUID();
      const [shopA, shopB] = [await system.createShop(merchant), await system.createShop(merchant)];
      const a1 = await system.createLink(apiKey(merchant), { shop_id: shopA, order_id: 'ord-1' });
      const a2 = await system.createLink(apiKey(merchant), { shop_id: shopA, order_id: 'ord-2' });
      const b1 = await system.createLink(apiKey(merchant), { shop_id: shopB, order_id: 'ord-1' });
      await system.bus.request(subjects.linksCancel, { id: a2.id }, apiKey(merchant));
      const ids = (l: PaymentLinkPage) => l.payment_links.map((x) => x.id);

      expect(ids(await list(apiKey(merchant), { status: 'canceled' }))).toEqual([a2.id]);
      expect(ids(await list(apiKey(merchant), { status: 'pending' }))).toEqual([b1.id, a1.id]);
      expect(ids(await list(apiKey(merchant), { shop_id: shopA }))).toEqual([a2.id, a1.id]);
      expect(ids(await list(apiKey(merchant), { order_id: 'ord-1' }))).toEqual([b1.id, a1.id]);
      expect(ids(await list(apiKey(merchant), { order_id: 'ord-1', shop_id: shopB }))).toEqual([b1.id]);
      expect(await list(apiKey(randomUUID()))).toEqual({ payment_links: [], has_more: false, next_cursor: null });
    });

    it("answers 403 for a filter on another merchant's shop and 404 for an unknown shop, as create does", async () => {
      const merchant = randomUUID();
      await system.createShop(merchant);
      const strangerShop = await system.createShop(randomUUID());
      await expect(list(apiKey(merchant), { shop_id: strangerShop })).rejects.toMatchObject({ kind: 'forbidden', code: 'common.err.forbidden' });
      await expect(list(apiKey(merchant), { shop_id: 2_000_000_000 })).rejects.toMatchObject({ kind: 'not_found', code: 'common.err.not_found' });
    });

    it("shows a cashier key its own shop's links only", async () => {
      const merchant = randomUUID();
      const [shopA, shopB] = [await system.createShop(merchant), await system.createShop(merchant)];
      const a = await system.createLink(apiKey(merchant), { shop_id: shopA });
      await system.createLink(apiKey(merchant), { shop_id: shopB });
      expect((await list(cashier(merchant, shopA))).payment_links.map((l) => l.id)).toEqual([a.id]);
      await expect(list(cashier(merchant, shopA), { shop_id: shopB })).rejects.toMatchObject({ code: 'common.err.forbidden' });
    });

    it('lists a link past its expiry as expired, not pending', async () => {
      const merchant = randomUUID();
      const shopId = await system.createShop(merchant);
      const due = await system.createLink(apiKey(merchant), { shop_id: shopId });
      const live = await system.createLink(apiKey(merchant), { shop_id: shopId });
      await makeDue(due.id);
      expect((await list(apiKey(merchant), { status: 'pending' })).payment_links.map((l) => l.id)).toEqual([live.id]);
      expect((await list(apiKey(merchant), { status: 'expired' })).payment_links.map((l) => l.id)).toEqual([due.id]);
    });

    it.each(['not-a-cursor!', 'djE6MTox', Buffer.from(`v1:1:${randomUUID()}x`).toString('base64url')])(
      'answers 400 for the malformed cursor %s',
      async (cursor) => {
        await expect(list(apiKey(randomUUID()), { cursor })).rejects.toMatchObject({
          code: 'common.err.validation_failed',
          message: 'cursor is malformed',
        });
      },
    );

    it('refuses a platform service identity', async () => {
      await expect(list(platform)).rejects.toMatchObject({ code: 'common.err.forbidden' });
    });
  });
});
