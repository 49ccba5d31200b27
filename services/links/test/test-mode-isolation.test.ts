import { createHash, randomUUID } from 'node:crypto';
import {
  subjects,
  type CreateLinkCommand,
  type IdempotencyClaim,
  type Identity,
  type ListLinksCommand,
  type PaymentLink,
  type PaymentLinkPage,
} from '@pl/contracts';
import { apiKey, cashier, platform, session, startLinksSystem, testKey, type LinksSystem } from './support/links-system';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const claim = (key: string, route: string, asked = 'body-1'): IdempotencyClaim => ({ route, key_sha256: sha256(key), fingerprint: sha256(asked) });
const CREATE: CreateLinkCommand = { amount_kopecks: 10000, order_id: null, description: null, expires_in_minutes: 1440, return_url: null };
const NOT_FOUND = { kind: 'not_found', code: 'common.err.not_found', message: 'Payment link not found' };

describe('test mode: each mode sees only its own links', () => {
  let system: LinksSystem;

  const get = (id: string, who: Identity): Promise<PaymentLink> => system.bus.request(subjects.linksGet, { id }, who);
  const cancel = (id: string, who: Identity): Promise<PaymentLink> => system.bus.request(subjects.linksCancel, { id }, who);
  const list = (who: Identity, query: Partial<ListLinksCommand> = {}): Promise<PaymentLinkPage> =>
    system.bus.request(subjects.linksList, { limit: 20, cursor: null, status: null, shop_id: null, order_id: null, ...query }, who);
  const ids = (page: PaymentLinkPage): string[] => page.payment_links.map((l) => l.id);
  const statusOf = async (id: string): Promise<string | undefined> =>
    (await system.linksDb.query<{ status: string }>('SELECT status FROM payment_links WHERE id = $1', [id]))[0]?.status;
  const makeDue = (id: string) =>
    system.linksDb.query("UPDATE payment_links SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE id = $1", [
      id,
    ]);

  beforeAll(async () => {
    system = await startLinksSystem('linksmode');
  });

  afterAll(async () => {
    await system?.stop();
  });

  describe('create', () => {
    it('makes a link in the mode of the credential, livemode on the object and in the row', async () => {
      const merchant = randomUUID();
      const shopId = await system.createShop(merchant);
      const live = await system.createLink(apiKey(merchant), { shop_id: shopId });
      const test = await system.createLink(testKey(merchant), { shop_id: shopId });
      const byCashier = await system.createLink(cashier(merchant, shopId, 'test'), {});
      const bySession = await system.createLink(session(merchant, true, 'test'), { shop_id: shopId });
      expect([live.livemode, test.livemode, byCashier.livemode, bySession.livemode]).toEqual([true, false, false, false]);
      const rows = await system.linksDb.query<{ id: string; livemode: boolean }>('SELECT id, livemode FROM payment_links WHERE merchant_id = $1', [
        merchant,
      ]);
      expect(Object.fromEntries(rows.map((r) => [r.id, r.livemode]))).toEqual({
        [live.id]: true,
        [test.id]: false,
        [byCashier.id]: false,
        [bySession.id]: false,
      });
    });

    it('lets a test link be made for a shop pending approval, but never a live one', async () => {
      const merchant = randomUUID();
      const pending = await system.createShop(merchant, { status: 'pending' });
      await expect(system.createLink(testKey(merchant), { shop_id: pending })).resolves.toMatchObject({ livemode: false, status: 'pending' });
      await expect(system.createLink(cashier(merchant, pending, 'test'), {})).resolves.toMatchObject({ livemode: false });
      await expect(system.createLink(apiKey(merchant), { shop_id: pending })).rejects.toMatchObject({ code: 'shop.err.not_approved' });
    });

    it.each(['blocked', 'rejected'] as const)('refuses a test link for a %s shop with 422 not_approved, writing nothing', async (status) => {
      const merchant = randomUUID();
      const shopId = await system.createShop(merchant, { status });
      await expect(system.createLink(testKey(merchant), { shop_id: shopId })).rejects.toMatchObject({ code: 'shop.err.not_approved' });
      await expect(system.createLink(apiKey(merchant), { shop_id: shopId })).rejects.toMatchObject({ code: 'shop.err.not_approved' });
      const rows = await system.linksDb.query('SELECT 1 FROM payment_links WHERE shop_id = $1', [shopId]);
      expect(rows).toHaveLength(0);
    });
  });

  describe('get and cancel', () => {
    const merchant = randomUUID();
    let shopId: number;
    let live: PaymentLink;
    let test: PaymentLink;

    beforeAll(async () => {
      shopId = await system.createShop(merchant);
      live = await system.createLink(apiKey(merchant), { shop_id: shopId });
      test = await system.createLink(testKey(merchant), { shop_id: shopId });
    });

    it('reads each link in its own mode, with its livemode', async () => {
      await expect(get(live.id, apiKey(merchant))).resolves.toEqual(live);
      await expect(get(test.id, testKey(merchant))).resolves.toEqual(test);
      await expect(get(test.id, cashier(merchant, shopId, 'test'))).resolves.toMatchObject({ id: test.id, livemode: false });
    });

    it('answers the other mode as if the link did not exist', async () => {
      await expect(get(test.id, apiKey(merchant))).rejects.toMatchObject(NOT_FOUND);
      await expect(get(live.id, testKey(merchant))).rejects.toMatchObject(NOT_FOUND);
      await expect(get(live.id, cashier(merchant, shopId, 'test'))).rejects.toMatchObject(NOT_FOUND);
      await expect(get(test.id, session(merchant, true))).rejects.toMatchObject(NOT_FOUND);
    });

    it("answers 404, not 403, for another merchant's link of the other mode; 403 for one of the same mode", async () => {
      const stranger = randomUUID();
      await expect(get(test.id, apiKey(stranger))).rejects.toMatchObject(NOT_FOUND);
      await expect(cancel(test.id, apiKey(stranger))).rejects.toMatchObject(NOT_FOUND);
      await expect(get(test.id, testKey(stranger))).rejects.toMatchObject({ code: 'common.err.forbidden' });
      await expect(cancel(live.id, testKey(stranger))).rejects.toMatchObject(NOT_FOUND);
    });

    it('does not cancel a link of the other mode, and cancels one of its own', async () => {
      const other = await system.createLink(testKey(merchant), { shop_id: shopId });
      await expect(cancel(other.id, apiKey(merchant))).rejects.toMatchObject(NOT_FOUND);
      expect(await statusOf(other.id)).toBe('pending');
      await expect(cancel(other.id, testKey(merchant))).resolves.toMatchObject({ status: 'canceled', livemode: false });
      // A canceled link of the other mode is still not found, not 409.
      await expect(cancel(other.id, apiKey(merchant))).rejects.toMatchObject(NOT_FOUND);
    });

    it('does not expire a due link of the other mode on read', async () => {
      const due = await system.createLink(apiKey(merchant), { shop_id: shopId });
      await makeDue(due.id);
      await expect(get(due.id, testKey(merchant))).rejects.toMatchObject(NOT_FOUND);
      expect(await statusOf(due.id)).toBe('pending');
    });
  });

  describe('list', () => {
    const merchant = randomUUID();
    let shopA: number;
    let shopB: number;
    const made: Record<'live' | 'test', PaymentLink[]> = { live: [], test: [] };

    beforeAll(async () => {
      [shopA, shopB] = [await system.createShop(merchant), await system.createShop(merchant)];
      // Interleaved, so every filter and every page would meet the other mode's links.
      for (const [i, shop] of [shopA, shopB, shopA].entries()) {
        made.live.push(await system.createLink(apiKey(merchant), { shop_id: shop, order_id: `ord-${i % 2}` }));
        made.test.push(await system.createLink(testKey(merchant), { shop_id: shop, order_id: `ord-${i % 2}` }));
      }
      const [liveFirst, testFirst] = [made.live[0], made.test[0]];
      if (!liveFirst || !testFirst) throw new Error('links were not made');
      await cancel(liveFirst.id, apiKey(merchant));
      await cancel(testFirst.id, testKey(merchant));
    });

    const newest = (mode: 'live' | 'test') => made[mode].map((l) => l.id).reverse();
    const at = (mode: 'live' | 'test', i: number): string => made[mode][i]?.id ?? '';

    it.each([
      ['live', apiKey],
      ['test', testKey],
    ] as const)('lists only %s links, with every filter', async (mode, key) => {
      const who = key(merchant);
      expect(ids(await list(who))).toEqual(newest(mode));
      expect((await list(who)).payment_links.every((l) => l.livemode === (mode === 'live'))).toBe(true);
      expect(ids(await list(who, { status: 'canceled' }))).toEqual([at(mode, 0)]);
      expect(ids(await list(who, { status: 'pending' }))).toEqual([at(mode, 2), at(mode, 1)]);
      expect(ids(await list(who, { shop_id: shopA }))).toEqual([at(mode, 2), at(mode, 0)]);
      expect(ids(await list(who, { shop_id: shopB }))).toEqual([at(mode, 1)]);
      expect(ids(await list(who, { order_id: 'ord-0' }))).toEqual([at(mode, 2), at(mode, 0)]);
      expect(ids(await list(who, { order_id: 'ord-1', shop_id: shopB }))).toEqual([at(mode, 1)]);
    });

    it('pages through one mode with the cursor, and a cursor from the other mode still yields only this one', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: PaymentLinkPage = await list(testKey(merchant), { limit: 1, cursor });
        seen.push(...ids(page));
        cursor = page.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual(newest('test'));

      const livePage = await list(apiKey(merchant), { limit: 1 });
      expect(livePage.next_cursor).not.toBeNull();
      const fromLiveCursor = await list(testKey(merchant), { cursor: livePage.next_cursor });
      expect(fromLiveCursor.payment_links.every((l) => !l.livemode)).toBe(true);
      expect(ids(fromLiveCursor).every((id) => newest('test').includes(id))).toBe(true);
    });

    it("shows a test cashier key its own shop's test links only", async () => {
      expect(ids(await list(cashier(merchant, shopB, 'test')))).toEqual([at('test', 1)]);
      expect(ids(await list(cashier(merchant, shopB)))).toEqual([at('live', 1)]);
    });

    it('expires due links of its own mode only before an expired filter', async () => {
      const other = randomUUID();
      const shopId = await system.createShop(other);
      const dueLive = await system.createLink(apiKey(other), { shop_id: shopId });
      const dueTest = await system.createLink(testKey(other), { shop_id: shopId });
      await Promise.all([makeDue(dueLive.id), makeDue(dueTest.id)]);
      expect(ids(await list(testKey(other), { status: 'expired' }))).toEqual([dueTest.id]);
      expect(await statusOf(dueLive.id)).toBe('pending');
      expect(ids(await list(apiKey(other), { status: 'expired' }))).toEqual([dueLive.id]);
    });
  });

  describe('Idempotency-Keys', () => {
    const merchant = randomUUID();
    let shopId: number;

    beforeAll(async () => {
      shopId = await system.createShop(merchant);
    });

    const createOnce = (key: IdempotencyClaim, who: Identity) =>
      system.bus.request(subjects.linksCreateOnce, { ...CREATE, shop_id: shopId, idempotency: key }, who);
    const cancelOnce = (id: string, key: IdempotencyClaim, who: Identity) =>
      system.bus.request(subjects.linksCancelOnce, { id, idempotency: key }, who);

    it('keeps the same key apart per mode: two creates make two links, each replayed in its own mode', async () => {
      const key = claim('same-key-both-modes', 'merchant-v1-create');
      const live = await createOnce(key, apiKey(merchant));
      const test = await createOnce(key, testKey(merchant));
      expect([live.replayed, test.replayed]).toEqual([false, false]);
      expect(test.link.id).not.toBe(live.link.id);
      expect([live.link.livemode, test.link.livemode]).toEqual([true, false]);
      await expect(createOnce(key, testKey(merchant))).resolves.toEqual({ link: test.link, replayed: true });
      await expect(createOnce(key, apiKey(merchant))).resolves.toEqual({ link: live.link, replayed: true });
    });

    it('answers a keyed cancel of the other mode as not found, keeping nothing', async () => {
      const test = await system.createLink(testKey(merchant), { shop_id: shopId });
      const key = claim('cancel-across', 'merchant-v1-cancel', test.id);
      await expect(cancelOnce(test.id, key, apiKey(merchant))).rejects.toMatchObject(NOT_FOUND);
      expect(await statusOf(test.id)).toBe('pending');
      // In its own mode the same key cancels it.
      await expect(cancelOnce(test.id, key, testKey(merchant))).resolves.toMatchObject({
        replayed: false,
        link: { status: 'canceled', livemode: false },
      });
    });
  });

  it('carries livemode on the buyer-safe view and the settled link', async () => {
    const merchant = randomUUID();
    const shopId = await system.createShop(merchant);
    for (const [key, livemode] of [
      [apiKey, true],
      [testKey, false],
    ] as const) {
      const link = await system.createLink(key(merchant), { shop_id: shopId });
      await expect(system.bus.request(subjects.linksPublicGet, { id: link.id }, platform)).resolves.toMatchObject({ livemode });
      await expect(system.bus.request(subjects.linksSelect, { id: link.id, method: 'sbp', network: null }, platform)).resolves.toMatchObject({
        livemode,
      });
      await expect(
        system.bus.request(subjects.linksSettle, { provider: 'sandbox', gateway_payment_id: `sbx_${link.id}`, status: 'paid' }, platform),
      ).resolves.toMatchObject({ livemode, status: 'paid' });
    }
  });
});
