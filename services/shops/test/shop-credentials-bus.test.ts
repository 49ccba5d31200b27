import { randomUUID } from 'node:crypto';
import { subjects, type Mode } from '@pl/contracts';
import { gatewayService, merchant, MOSCOW_DATE, startShopsHarness, type ShopsHarness } from './merchant-harness';

/** Reads a Moscow RFC 3339 date back as an instant. */
const instant = (moscow: string): number => new Date(moscow).getTime();

/** A merchant rotates its shop's webhook secret and reissues its cashier key (shops.rotate_secret, shops.reissue_cashier_key). */
describe('shop credentials over NATS', () => {
  let h: ShopsHarness;
  const owner = randomUUID();
  const stranger = randomUUID();

  beforeAll(async () => {
    h = await startShopsHarness('shopscreds');
  });

  afterAll(async () => {
    await h?.close();
  });

  const target = (shopId: number) => h.bus.request(subjects.shopsWebhookTarget, { shop_id: shopId }, { kind: 'service', service: 'notifier' });
  const rotate = (shopId: number, overlapMinutes: number) =>
    h.bus.request(subjects.shopsRotateSecret, { shop_id: shopId, overlap_minutes: overlapMinutes }, merchant(owner));

  describe('shops.rotate_secret', () => {
    it('returns a new 256-bit secret once, in both forms, and keeps the old one signing for the overlap', async () => {
      const { shopId } = await h.seedShop(owner);
      const before = Date.now();
      const rotated = await rotate(shopId, 90);
      expect(rotated.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(rotated.webhook_secret, 'base64url')).toHaveLength(32);
      expect(rotated.standard_webhooks_secret).toBe(`whsec_${Buffer.from(rotated.webhook_secret, 'utf8').toString('base64')}`);
      expect(rotated.previous_valid_until).toMatch(MOSCOW_DATE);
      const until = instant(String(rotated.previous_valid_until));
      expect(until).toBeGreaterThanOrEqual(before + 90 * 60_000 - 1000);
      expect(until).toBeLessThanOrEqual(Date.now() + 90 * 60_000);
      await expect(target(shopId)).resolves.toMatchObject({ secret: rotated.webhook_secret, previous_secret: 'seeded-secret' });
      await expect(h.bus.request(subjects.shopsRead, { shop_id: shopId }, merchant(owner))).resolves.toMatchObject({
        webhook_secret_set: true,
        previous_secret_valid_until: rotated.previous_valid_until,
      });
    });

    it('ends the old secret at once with an overlap of 0', async () => {
      const { shopId } = await h.seedShop(owner);
      const rotated = await rotate(shopId, 0);
      expect(rotated.previous_valid_until).toBeNull();
      await expect(target(shopId)).resolves.toMatchObject({ secret: rotated.webhook_secret, previous_secret: null });
      await expect(h.bus.request(subjects.shopsRead, { shop_id: shopId }, merchant(owner))).resolves.toMatchObject({
        previous_secret_valid_until: null,
      });
    });

    it('makes the secret being replaced the previous one on a second rotation during an overlap, dropping the older', async () => {
      const { shopId } = await h.seedShop(owner);
      const first = await rotate(shopId, 60);
      const second = await rotate(shopId, 30);
      expect(second.webhook_secret).not.toBe(first.webhook_secret);
      expect(instant(String(second.previous_valid_until))).toBeLessThan(instant(String(first.previous_valid_until)));
      await expect(target(shopId)).resolves.toMatchObject({ secret: second.webhook_secret, previous_secret: first.webhook_secret });
      const third = await rotate(shopId, 0);
      await expect(target(shopId)).resolves.toMatchObject({ secret: third.webhook_secret, previous_secret: null });
    });

    it('stops offering the previous secret once the overlap has ended', async () => {
      const { shopId } = await h.seedShop(owner);
      const rotated = await rotate(shopId, 5);
      await h.db.query("UPDATE shops SET previous_secret_valid_until = now() - interval '1 millisecond' WHERE id = $1", [shopId]);
      await expect(target(shopId)).resolves.toMatchObject({ secret: rotated.webhook_secret, previous_secret: null });
      await expect(h.bus.request(subjects.shopsRead, { shop_id: shopId }, merchant(owner))).resolves.toMatchObject({
        previous_secret_valid_until: null,
      });
    });

    it('refuses an unconfirmed email, another merchant, an unknown shop and a cashier, and keeps the secret', async () => {
      const { shopId } = await h.seedShop(owner);
      const body = { shop_id: shopId, overlap_minutes: 10 };
      await expect(h.bus.request(subjects.shopsRotateSecret, body, merchant(owner, { emailConfirmed: false }))).rejects.toMatchObject({
        kind: 'forbidden',
        code: 'account.err.email_not_confirmed',
        message: 'Confirm the account email before rotating secrets',
      });
      await expect(h.bus.request(subjects.shopsRotateSecret, body, merchant(stranger))).rejects.toMatchObject({ code: 'common.err.forbidden' });
      await expect(h.bus.request(subjects.shopsRotateSecret, { ...body, shop_id: 987_654 }, merchant(stranger))).rejects.toMatchObject({
        kind: 'not_found',
      });
      await expect(h.bus.request(subjects.shopsRotateSecret, body, merchant(owner, { auth: 'cashier', shopId }))).rejects.toMatchObject({
        code: 'common.err.forbidden',
      });
      await expect(target(shopId)).resolves.toMatchObject({ secret: 'seeded-secret', previous_secret: null });
    });

    it.each([[-1], [4321], [1.5]])('refuses overlap_minutes %p with validation_failed', async (overlap) => {
      const { shopId } = await h.seedShop(owner);
      await expect(h.raw(subjects.shopsRotateSecret, { shop_id: shopId, overlap_minutes: overlap }, merchant(owner))).resolves.toMatchObject({
        ok: false,
        error: { code: 'common.err.validation_failed', details: [{ field: 'overlap_minutes' }] },
      });
    });
  });

  describe('shops.reissue_cashier_key', () => {
    const byKey = (key: string) => h.bus.request(subjects.shopsByCashierKey, { cashier_key: key }, gatewayService);
    const reissue = (shopId: number, mode: Mode) => h.bus.request(subjects.shopsReissueCashierKey, { shop_id: shopId, mode }, merchant(owner));
    const activeModes = async (shopId: number): Promise<string[]> =>
      (await h.db.query<{ mode: string }>('SELECT mode FROM cashier_keys WHERE shop_id = $1 AND revoked_at IS NULL ORDER BY mode', [shopId])).map(
        (r) => r.mode,
      );

    it.each([
      ['live', 'test'],
      ['test', 'live'],
    ] as const)('issues a new %s key, the old %s key is unknown at once, and the other mode keeps its key', async (mode, other) => {
      const seeded = await h.seedShop(owner);
      const keys = { live: seeded.cashierKey, test: seeded.testCashierKey };
      await expect(byKey(keys[mode])).resolves.toMatchObject({ id: seeded.shopId });
      const reissued = await reissue(seeded.shopId, mode);
      expect(reissued).toEqual({ cashier_key: expect.stringMatching(new RegExp(`^svc_${mode}_[A-Za-z0-9_-]{43}$`)), mode });
      await expect(byKey(keys[mode])).rejects.toMatchObject({ kind: 'unauthorized' });
      await expect(byKey(reissued.cashier_key)).resolves.toMatchObject({ id: seeded.shopId, merchant_id: owner });
      await expect(byKey(keys[other])).resolves.toMatchObject({ id: seeded.shopId });
      const { cashier_key: fresher } = await reissue(seeded.shopId, mode);
      await expect(byKey(reissued.cashier_key)).rejects.toMatchObject({ kind: 'unauthorized' });
      await expect(byKey(fresher)).resolves.toMatchObject({ id: seeded.shopId });
      await expect(byKey(keys[other])).resolves.toMatchObject({ id: seeded.shopId });
      expect(await activeModes(seeded.shopId)).toEqual(['live', 'test']);
    });

    it('acts in the mode the command names, whatever mode the caller acts in', async () => {
      const { shopId, cashierKey } = await h.seedShop(owner);
      const fromTestSession = await h.bus.request(
        subjects.shopsReissueCashierKey,
        { shop_id: shopId, mode: 'live' },
        merchant(owner, { mode: 'test' }),
      );
      expect(fromTestSession).toMatchObject({ cashier_key: expect.stringMatching(/^svc_live_/), mode: 'live' });
      await expect(byKey(cashierKey)).rejects.toMatchObject({ kind: 'unauthorized' });
    });

    it('gives a shop the merchant created its first readable key of each mode', async () => {
      const created = await h.bus.request(subjects.shopsCreate, { name: 'New', webhook_url: null, fee_payer: 'merchant' }, merchant(owner));
      expect(await activeModes(created.id)).toEqual(['live', 'test']);
      const { cashier_key: live } = await reissue(created.id, 'live');
      const { cashier_key: test } = await reissue(created.id, 'test');
      await expect(byKey(live)).resolves.toMatchObject({ id: created.id, status: 'pending' });
      await expect(byKey(test)).resolves.toMatchObject({ id: created.id, status: 'pending' });
      expect(await activeModes(created.id)).toEqual(['live', 'test']);
    });

    it.each([[{}], [{ mode: 'sandbox' }], [{ mode: 'LIVE' }]])('refuses a command with %j besides the shop with validation_failed', async (extra) => {
      const { shopId, cashierKey } = await h.seedShop(owner);
      await expect(h.raw(subjects.shopsReissueCashierKey, { shop_id: shopId, ...extra }, merchant(owner))).resolves.toMatchObject({
        ok: false,
        error: { code: 'common.err.validation_failed', details: [{ field: 'mode' }] },
      });
      await expect(byKey(cashierKey)).resolves.toMatchObject({ id: shopId });
    });

    it('refuses an unconfirmed email, another merchant, an unknown shop and a cashier, and the old keys keep working', async () => {
      const { shopId, cashierKey, testCashierKey } = await h.seedShop(owner);
      const command = { shop_id: shopId, mode: 'test' } as const;
      await expect(h.bus.request(subjects.shopsReissueCashierKey, command, merchant(owner, { emailConfirmed: false }))).rejects.toMatchObject({
        code: 'account.err.email_not_confirmed',
      });
      await expect(h.bus.request(subjects.shopsReissueCashierKey, command, merchant(stranger))).rejects.toMatchObject({
        code: 'common.err.forbidden',
      });
      await expect(h.bus.request(subjects.shopsReissueCashierKey, { ...command, shop_id: 987_654 }, merchant(owner))).rejects.toMatchObject({
        kind: 'not_found',
      });
      // A cashier, even of this very shop, may not mint its own successor.
      await expect(
        h.bus.request(subjects.shopsReissueCashierKey, command, merchant(owner, { auth: 'cashier', shopId, mode: 'test' })),
      ).rejects.toMatchObject({
        code: 'common.err.forbidden',
      });
      await expect(byKey(cashierKey)).resolves.toMatchObject({ id: shopId });
      await expect(byKey(testCashierKey)).resolves.toMatchObject({ id: shopId });
    });
  });
});
