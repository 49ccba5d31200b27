import { randomUUID } from 'node:crypto';
import { broadcasts, merchantShop, subjects, type MerchantShopPage, type ShopsChangedMessage } from '@pl/contracts';
import { withDeadline } from '@pl/testing';
import { gatewayService, merchant, MOSCOW_DATE, PUBLIC_HOOK, startShopsHarness, type ShopsHarness } from './merchant-harness';

/** A merchant lists, reads, creates and changes its own shops over NATS (shops.list/read/create/update). */
describe('merchant shop management over NATS', () => {
  let h: ShopsHarness;
  const owner = randomUUID();
  const stranger = randomUUID();

  beforeAll(async () => {
    // Rates other than the built-in 100/100 show that a new shop takes the deployment's defaults.
    h = await startShopsHarness('shopsmerchant', { SHOP_DEFAULT_CRYPTO_BPS: '150', SHOP_DEFAULT_SBP_BPS: '75' });
  });

  afterAll(async () => {
    await h?.close();
  });

  const create = (merchantId: string, name: string, extra: { webhook_url?: string | null; fee_payer?: 'merchant' | 'client' | 'split' } = {}) =>
    h.bus.request(
      subjects.shopsCreate,
      { name, webhook_url: extra.webhook_url ?? null, fee_payer: extra.fee_payer ?? 'merchant' },
      merchant(merchantId),
    );

  describe('shops.create', () => {
    it('creates a pending shop at the platform default rates, with a secret and a cashier key of each mode that it does not return', async () => {
      const shop = await create(owner, 'Корнер ☕', { webhook_url: 'https://93.184.216.34/hook?a=1', fee_payer: 'split' });
      expect(shop).toEqual({
        id: expect.any(Number),
        name: 'Корнер ☕',
        status: 'pending',
        fee_payer: 'split',
        crypto_bps: 150,
        sbp_bps: 75,
        webhook_url: 'https://93.184.216.34/hook?a=1',
        webhook_events: ['payment.succeeded'],
        payment_methods: { sbp: true, crypto_networks: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON'] },
        webhook_secret_set: true,
        previous_secret_valid_until: null,
        payout_schedule: { interval: 'manual', destination_id: null, minimum: null },
        created_at: expect.stringMatching(MOSCOW_DATE),
        updated_at: expect.stringMatching(MOSCOW_DATE),
      });
      expect(Object.keys(shop).sort()).toEqual(Object.keys(merchantShop.shape).sort());
      const target = await h.repo.getWebhookTarget(shop.id);
      expect(target?.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(shop)).not.toContain(String(target?.secret));
      const keys = await h.db.query<{ mode: string }>('SELECT mode FROM cashier_keys WHERE shop_id = $1 AND revoked_at IS NULL ORDER BY mode', [
        shop.id,
      ]);
      expect(keys.map((k) => k.mode)).toEqual(['live', 'test']);
      await expect(h.repo.getShop(shop.id)).resolves.toMatchObject({ merchantId: owner });
    });

    it('refuses a merchant whose email is not confirmed, and stores nothing', async () => {
      const unconfirmed = randomUUID();
      await expect(
        h.bus.request(
          subjects.shopsCreate,
          { name: 'Early', webhook_url: null, fee_payer: 'merchant' },
          merchant(unconfirmed, { emailConfirmed: false }),
        ),
      ).rejects.toMatchObject({
        kind: 'forbidden',
        code: 'account.err.email_not_confirmed',
        message: 'Confirm the account email before creating shops',
      });
      await expect(h.repo.listShops({ merchantId: unconfirmed, beforeId: null, limit: 10 })).resolves.toEqual([]);
    });

    it('refuses a cashier identity and a platform service with forbidden', async () => {
      const body = { name: 'Till', webhook_url: null, fee_payer: 'merchant' } as const;
      await expect(h.bus.request(subjects.shopsCreate, body, merchant(owner, { auth: 'cashier', shopId: 1 }))).rejects.toMatchObject({
        kind: 'forbidden',
        message: 'A cashier key may not manage shops',
      });
      await expect(h.bus.request(subjects.shopsCreate, body, gatewayService)).rejects.toMatchObject({ kind: 'forbidden' });
    });

    it('refuses a webhook URL that points at a private address with validation_failed on webhook_url', async () => {
      await expect(create(owner, 'Private', { webhook_url: 'http://10.0.0.7/hook' })).rejects.toMatchObject({
        code: 'common.err.validation_failed',
        details: [{ field: 'webhook_url' }],
      });
    });

    it.each([
      ['status', { status: 'approved' }],
      ['crypto_bps', { crypto_bps: 0 }],
      ['sbp_bps', { sbp_bps: 0 }],
      ['merchant_id', { merchant_id: randomUUID() }],
    ])('refuses a body that sets %s with validation_failed naming it', async (field, extra) => {
      const reply = await h.raw(subjects.shopsCreate, { name: 'Sneaky', webhook_url: null, fee_payer: 'merchant', ...extra }, merchant(owner));
      expect(reply).toMatchObject({ ok: false, error: { code: 'common.err.validation_failed' } });
      expect(JSON.stringify(reply)).toContain(field);
    });

    it('refuses a blank name and one of 101 code points, and accepts 100', async () => {
      for (const name of ['  ', '€'.repeat(101)]) {
        await expect(h.raw(subjects.shopsCreate, { name, webhook_url: null, fee_payer: 'merchant' }, merchant(owner))).resolves.toMatchObject({
          ok: false,
          error: { code: 'common.err.validation_failed', details: [{ field: 'name' }] },
        });
      }
      await expect(create(owner, '😀'.repeat(100))).resolves.toMatchObject({ name: '😀'.repeat(100) });
    });
  });

  describe('shops.read', () => {
    it('answers the owner, by session or API key of either mode, even with an unconfirmed email', async () => {
      const { shopId } = await h.seedShop(owner);
      // Shops are shared by both modes (docs/test-mode.md): a test credential reads the very same shop.
      const identities = [
        merchant(owner, { emailConfirmed: false }),
        merchant(owner, { auth: 'api_key' }),
        merchant(owner, { auth: 'api_key', mode: 'test' }),
      ];
      for (const identity of identities) {
        await expect(h.bus.request(subjects.shopsRead, { shop_id: shopId }, identity)).resolves.toMatchObject({
          id: shopId,
          status: 'approved',
          webhook_url: PUBLIC_HOOK,
          webhook_secret_set: true,
        });
      }
    });

    it('answers not_found for an unknown shop before forbidden for another merchant', async () => {
      const { shopId } = await h.seedShop(owner);
      await expect(h.bus.request(subjects.shopsRead, { shop_id: 987_654 }, merchant(stranger))).rejects.toMatchObject({ kind: 'not_found' });
      await expect(h.bus.request(subjects.shopsRead, { shop_id: shopId }, merchant(stranger))).rejects.toMatchObject({
        kind: 'forbidden',
        message: 'Shop belongs to another merchant',
      });
    });

    it('refuses a cashier identity even for its own shop', async () => {
      const { shopId } = await h.seedShop(owner);
      await expect(h.bus.request(subjects.shopsRead, { shop_id: shopId }, merchant(owner, { auth: 'cashier', shopId }))).rejects.toMatchObject({
        kind: 'forbidden',
      });
    });
  });

  describe('shops.update', () => {
    it('changes only the given fields, clears the webhook URL with null and needs no confirmed email', async () => {
      const created = await create(owner, 'Before', { webhook_url: PUBLIC_HOOK });
      const unconfirmed = merchant(owner, { emailConfirmed: false });
      const renamed = await h.bus.request(subjects.shopsUpdate, { shop_id: created.id, name: 'After', fee_payer: 'client' }, unconfirmed);
      expect(renamed).toMatchObject({ name: 'After', fee_payer: 'client', webhook_url: PUBLIC_HOOK, status: 'pending', crypto_bps: 150 });
      const cleared = await h.bus.request(subjects.shopsUpdate, { shop_id: created.id, webhook_url: null }, unconfirmed);
      expect(cleared).toMatchObject({ name: 'After', webhook_url: null, webhook_secret_set: true });
      const set = await h.bus.request(subjects.shopsUpdate, { shop_id: created.id, webhook_url: 'https://93.184.216.35/new' }, unconfirmed);
      expect(set.webhook_url).toBe('https://93.184.216.35/new');
    });

    it('sets the event subscription (any known types, or none) and refuses an unknown type or a repeat with validation_failed', async () => {
      const { shopId } = await h.seedShop(owner);
      const chosen = await h.bus.request(
        subjects.shopsUpdate,
        { shop_id: shopId, webhook_events: ['payment.failed', 'payment_link.canceled'] },
        merchant(owner),
      );
      expect(chosen.webhook_events).toEqual(['payment.failed', 'payment_link.canceled']);
      await expect(h.bus.request(subjects.shopsRead, { shop_id: shopId }, merchant(owner))).resolves.toMatchObject({
        webhook_events: ['payment.failed', 'payment_link.canceled'],
      });
      for (const bad of [['payment.refunded'], ['payment.failed', 'payment.failed'], 'payment.failed', [null]]) {
        const reply = await h.raw(subjects.shopsUpdate, { shop_id: shopId, webhook_events: bad }, merchant(owner));
        expect(reply).toMatchObject({ ok: false, error: { code: 'common.err.validation_failed' } });
        expect(JSON.stringify(reply)).toContain('webhook_events');
      }
      const none = await h.bus.request(subjects.shopsUpdate, { shop_id: shopId, webhook_events: [] }, merchant(owner));
      expect(none.webhook_events).toEqual([]);
      await expect(h.repo.getShop(shopId)).resolves.toMatchObject({ webhookEvents: [] });
    });

    it('merges a change of the payment methods, keeps one method on, and refuses an unknown or repeated network with validation_failed', async () => {
      const { shopId } = await h.seedShop(owner);
      const update = (payment_methods: unknown) => h.raw(subjects.shopsUpdate, { shop_id: shopId, payment_methods }, merchant(owner));
      const cryptoOnly = await h.bus.request(subjects.shopsUpdate, { shop_id: shopId, payment_methods: { sbp: false } }, merchant(owner));
      expect(cryptoOnly.payment_methods).toEqual({
        sbp: false,
        crypto_networks: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON'],
      });
      const two = await h.bus.request(
        subjects.shopsUpdate,
        { shop_id: shopId, payment_methods: { crypto_networks: ['TON-TON', 'BTC-BTC'] } },
        merchant(owner),
      );
      expect(two.payment_methods).toEqual({ sbp: false, crypto_networks: ['TON-TON', 'BTC-BTC'] });
      for (const bad of [
        { crypto_networks: [] },
        { crypto_networks: ['DOGE-DOGE'] },
        { crypto_networks: ['BTC-BTC', 'BTC-BTC'] },
        { sbp: 'yes' },
        { card: true },
        null,
      ]) {
        const reply = await update(bad);
        expect(reply).toMatchObject({ ok: false, error: { code: 'common.err.validation_failed' } });
        expect(JSON.stringify(reply)).toContain('payment_methods');
      }
      const none = await update({ sbp: false, crypto_networks: [] });
      expect(none).toMatchObject({ ok: false, error: { code: 'common.err.validation_failed' } });
      await expect(h.repo.getShop(shopId)).resolves.toMatchObject({ paymentMethods: { sbp: false, crypto_networks: ['TON-TON', 'BTC-BTC'] } });
      const sbpOnly = await h.bus.request(
        subjects.shopsUpdate,
        { shop_id: shopId, payment_methods: { sbp: true, crypto_networks: [] } },
        merchant(owner),
      );
      expect(sbpOnly.payment_methods).toEqual({ sbp: true, crypto_networks: [] });
    });

    it('keeps one method on when two merchants switch off the last two at once: one of them is refused', async () => {
      const { shopId } = await h.seedShop(owner);
      await h.bus.request(subjects.shopsUpdate, { shop_id: shopId, payment_methods: { crypto_networks: ['BTC-BTC'] } }, merchant(owner));
      const both = await Promise.all([
        h.raw(subjects.shopsUpdate, { shop_id: shopId, payment_methods: { sbp: false } }, merchant(owner)),
        h.raw(subjects.shopsUpdate, { shop_id: shopId, payment_methods: { crypto_networks: [] } }, merchant(owner)),
      ]);
      expect(both.filter((r) => (r as { ok: boolean }).ok)).toHaveLength(1);
      const shop = await h.repo.getShop(shopId);
      const methods = shop?.paymentMethods;
      expect(methods !== undefined && (methods.sbp || methods.crypto_networks.length > 0)).toBe(true);
    });

    it('announces a change of the event subscription on shops.changed, like any other change', async () => {
      const { shopId } = await h.seedShop(owner);
      const seen = new Promise<ShopsChangedMessage>((resolve) => {
        const sub = h.bus.subscribe(
          broadcasts.shopsChanged,
          (n) => {
            if (n.shop_id !== shopId) return;
            sub.unsubscribe();
            resolve(n);
          },
          () => undefined,
        );
      });
      await h.nc.flush();
      await h.bus.request(subjects.shopsUpdate, { shop_id: shopId, webhook_events: ['refund.succeeded'] }, merchant(owner));
      await expect(withDeadline(seen, 5000, 'the shops.changed notice')).resolves.toEqual({ shop_id: shopId });
    });

    it('announces the change on shops.changed, so copies elsewhere go at once', async () => {
      const { shopId } = await h.seedShop(owner);
      const seen = new Promise<ShopsChangedMessage>((resolve) => {
        const sub = h.bus.subscribe(
          broadcasts.shopsChanged,
          (n) => {
            if (n.shop_id !== shopId) return;
            sub.unsubscribe();
            resolve(n);
          },
          () => undefined,
        );
      });
      await h.nc.flush();
      await h.bus.request(subjects.shopsUpdate, { shop_id: shopId, name: 'Renamed' }, merchant(owner));
      await expect(withDeadline(seen, 5000, 'the shops.changed notice')).resolves.toEqual({ shop_id: shopId });
    });

    it('refuses another merchant, an unknown shop, a cashier and a private webhook URL', async () => {
      const { shopId } = await h.seedShop(owner);
      await expect(h.bus.request(subjects.shopsUpdate, { shop_id: 987_654, name: 'X' }, merchant(stranger))).rejects.toMatchObject({
        kind: 'not_found',
      });
      await expect(h.bus.request(subjects.shopsUpdate, { shop_id: shopId, name: 'X' }, merchant(stranger))).rejects.toMatchObject({
        kind: 'forbidden',
      });
      await expect(
        h.bus.request(subjects.shopsUpdate, { shop_id: shopId, name: 'X' }, merchant(owner, { auth: 'cashier', shopId })),
      ).rejects.toMatchObject({
        kind: 'forbidden',
      });
      await expect(
        h.bus.request(subjects.shopsUpdate, { shop_id: shopId, webhook_url: 'http://127.0.0.1/x' }, merchant(owner)),
      ).rejects.toMatchObject({
        code: 'common.err.validation_failed',
      });
      await expect(h.repo.getShop(shopId)).resolves.toMatchObject({ webhookUrl: PUBLIC_HOOK });
    });

    it.each([
      ['status', { status: 'approved' }],
      ['crypto_bps', { crypto_bps: 1 }],
      ['sbp_bps', { sbp_bps: 1 }],
      ['webhook_secret', { webhook_secret: 'mine' }],
    ])('refuses a patch that sets %s with validation_failed naming it, and changes nothing', async (field, extra) => {
      const { shopId } = await h.seedShop(owner);
      const reply = await h.raw(subjects.shopsUpdate, { shop_id: shopId, name: 'Sneaky', ...extra }, merchant(owner));
      expect(reply).toMatchObject({ ok: false, error: { code: 'common.err.validation_failed' } });
      expect(JSON.stringify(reply)).toContain(field);
      await expect(h.repo.getShop(shopId)).resolves.toMatchObject({ status: 'approved', cryptoBps: 100 });
    });
  });

  describe('shops.list', () => {
    it('pages through the merchant’s own shops, newest first, and shows no other merchant’s', async () => {
      const lister = randomUUID();
      const ids: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        ids.push((await create(lister, `Shop ${String(i)}`)).id);
        await h.seedShop(randomUUID());
      }
      const seen: number[] = [];
      let cursor: string | null = null;
      const pages: boolean[] = [];
      do {
        const page: MerchantShopPage = await h.bus.request(
          subjects.shopsList,
          { limit: 2, cursor },
          merchant(lister, { auth: 'api_key', emailConfirmed: false }),
        );
        expect(page.shops.length).toBeLessThanOrEqual(2);
        seen.push(...page.shops.map((s) => s.id));
        pages.push(page.has_more);
        expect(page.next_cursor === null).toBe(!page.has_more);
        cursor = page.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual([...ids].reverse());
      expect(pages).toEqual([true, true, false]);
    });

    it('cuts a page of shops with the longest webhook URLs short, so the reply fits one message, and the cursor reaches every shop', async () => {
      const hoarder = randomUUID();
      // A normalized URL at its longest (2048 characters, each percent-encoded as 9 bytes): 60 of them exceed 1 MiB.
      const longest = `https://93.184.216.34/${'%E4%B8%AD'.repeat(2048)}`;
      const ids: number[] = [];
      for (let i = 0; i < 60; i += 1) {
        const { shop } = await h.repo.createShop({
          merchant_id: hoarder,
          name: `Long ${String(i)}`,
          status: 'approved',
          fee_payer: 'merchant',
          crypto_bps: 100,
          sbp_bps: 100,
          webhook_url: longest,
          webhook_secret: null,
        });
        ids.push(shop.id);
      }
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: MerchantShopPage = await h.bus.request(subjects.shopsList, { limit: 100, cursor }, merchant(hoarder));
        pages += 1;
        seen.push(...page.shops.map((s) => s.id));
        cursor = page.next_cursor;
      } while (cursor !== null);
      expect(pages).toBeGreaterThan(1);
      expect(seen).toEqual([...ids].reverse());
    });

    it('answers an empty page for a merchant without shops', async () => {
      await expect(h.bus.request(subjects.shopsList, { limit: 10, cursor: null }, merchant(randomUUID()))).resolves.toEqual({
        shops: [],
        has_more: false,
        next_cursor: null,
      });
    });

    it('refuses a cursor it did not write with validation_failed on cursor', async () => {
      for (const cursor of ['not-a-cursor', Buffer.from('v1:99999999999999999999').toString('base64url')]) {
        await expect(h.bus.request(subjects.shopsList, { limit: 10, cursor }, merchant(owner))).rejects.toMatchObject({
          code: 'common.err.validation_failed',
          details: [{ field: 'cursor' }],
        });
      }
    });

    it('refuses a cashier identity and a platform service', async () => {
      await expect(
        h.bus.request(subjects.shopsList, { limit: 10, cursor: null }, merchant(owner, { auth: 'cashier', shopId: 1 })),
      ).rejects.toMatchObject({
        kind: 'forbidden',
      });
      await expect(h.bus.request(subjects.shopsList, { limit: 10, cursor: null }, gatewayService)).rejects.toMatchObject({ kind: 'forbidden' });
    });
  });
});
