import { randomUUID } from 'node:crypto';
import { subjects } from '@pl/contracts';
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
    const reissue = (shopId: number) => h.bus.request(subjects.shopsReissueCashierKey, { shop_id: shopId }, merchant(owner));

    it('issues a new key and the old one is unknown to shops.by_cashier_key at once', async () => {
      const { shopId, cashierKey } = await h.seedShop(owner);
      await expect(byKey(cashierKey)).resolves.toMatchObject({ id: shopId });
      const { cashier_key: fresh } = await reissue(shopId);
      expect(fresh).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
      await expect(byKey(cashierKey)).rejects.toMatchObject({ kind: 'unauthorized' });
      await expect(byKey(fresh)).resolves.toMatchObject({ id: shopId, merchant_id: owner });
      const { cashier_key: fresher } = await reissue(shopId);
      await expect(byKey(fresh)).rejects.toMatchObject({ kind: 'unauthorized' });
      await expect(byKey(fresher)).resolves.toMatchObject({ id: shopId });
    });

    it('gives a shop the merchant created its first readable key', async () => {
      const created = await h.bus.request(subjects.shopsCreate, { name: 'New', webhook_url: null, fee_payer: 'merchant' }, merchant(owner));
      const { cashier_key: key } = await reissue(created.id);
      await expect(byKey(key)).resolves.toMatchObject({ id: created.id, status: 'pending' });
      const active = await h.db.query<{ n: string }>('SELECT count(*) AS n FROM cashier_keys WHERE shop_id = $1 AND revoked_at IS NULL', [
        created.id,
      ]);
      expect(active[0]?.n).toBe('1');
    });

    it('refuses an unconfirmed email, another merchant, an unknown shop and a cashier, and the old key keeps working', async () => {
      const { shopId, cashierKey } = await h.seedShop(owner);
      await expect(
        h.bus.request(subjects.shopsReissueCashierKey, { shop_id: shopId }, merchant(owner, { emailConfirmed: false })),
      ).rejects.toMatchObject({
        code: 'account.err.email_not_confirmed',
      });
      await expect(h.bus.request(subjects.shopsReissueCashierKey, { shop_id: shopId }, merchant(stranger))).rejects.toMatchObject({
        code: 'common.err.forbidden',
      });
      await expect(h.bus.request(subjects.shopsReissueCashierKey, { shop_id: 987_654 }, merchant(owner))).rejects.toMatchObject({
        kind: 'not_found',
      });
      // A cashier, even of this very shop, may not mint its own successor.
      await expect(
        h.bus.request(subjects.shopsReissueCashierKey, { shop_id: shopId }, merchant(owner, { auth: 'cashier', shopId })),
      ).rejects.toMatchObject({
        code: 'common.err.forbidden',
      });
      await expect(byKey(cashierKey)).resolves.toMatchObject({ id: shopId });
    });
  });
});
