import { randomUUID } from 'node:crypto';
import { paymentLink, subjects } from '@pl/contracts';
import { apiKey, cashier, instantOf, platform, PUBLIC_BASE_URL, session, startLinksSystem, type LinksSystem } from './support/links-system';

const MOSCOW_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/;

describe('links.create', () => {
  let system: LinksSystem;
  const merchant = randomUUID();
  const stranger = randomUUID();
  let shopId: number;

  beforeAll(async () => {
    system = await startLinksSystem('linkscreate');
    shopId = await system.createShop(merchant, { fee_payer: 'split', crypto_bps: 150, sbp_bps: 70 });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('creates a pending link with every field, money strings, Moscow dates and the checkout aliases', async () => {
    const link = await system.createLink(apiKey(merchant), {
      shop_id: shopId,
      amount_kopecks: 123456,
      order_id: 'order-1',
      description: 'Two coffees',
      expires_in_minutes: 90,
    });

    expect(paymentLink.strict().parse(link)).toEqual(link);
    expect(link).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      shop_id: shopId,
      order_id: 'order-1',
      description: 'Two coffees',
      return_url: null,
      currency: 'RUB',
      amount: '1234.56',
      fee_bps: 150,
      fee_percent_bp: 150,
      fee_payer: 'split',
      // fee = round_half_up(123456 × 150 / 10000) = 1852; split: buyer +926, merchant −926.
      payer_amount: '1243.82',
      merchant_credit: '1225.30',
      platform_revenue: '18.52',
      status: 'pending',
      failure_reason: null,
      amount_refunded: '0.00',
      gateway_provider: null,
      gateway_payment_id: null,
      to_currency: null,
      network: null,
      deposit_address: null,
      payer_currency: null,
      payer_crypto_amount: null,
      qr: null,
      checkout_url: `${PUBLIC_BASE_URL}/p/${link.id}`,
      pay_url: `${PUBLIC_BASE_URL}/p/${link.id}`,
      paymentUrl: `${PUBLIC_BASE_URL}/p/${link.id}`,
      expires_at: expect.stringMatching(MOSCOW_DATE),
      paid_at: null,
      created_at: expect.stringMatching(MOSCOW_DATE),
      updated_at: expect.stringMatching(MOSCOW_DATE),
      livemode: true,
    });
    expect(Math.abs(instantOf(link.created_at) - Date.now())).toBeLessThan(60_000);
    expect(instantOf(link.expires_at ?? '') - instantOf(link.created_at)).toBe(90 * 60_000);
  });

  it('stores return_url as sent and gives it back in the link, the list and the buyer-safe view', async () => {
    const url = 'https://shop.example/thanks?order=42&lang=ru#done';
    const link = await system.createLink(apiKey(merchant), { shop_id: shopId, return_url: url });
    expect(link.return_url).toBe(url);
    const rows = await system.linksDb.query<{ return_url: string | null }>('SELECT return_url FROM payment_links WHERE id = $1', [link.id]);
    expect(rows[0]).toEqual({ return_url: url });
    await expect(system.bus.request(subjects.linksGet, { id: link.id }, apiKey(merchant))).resolves.toMatchObject({ return_url: url });
    await expect(system.bus.request(subjects.linksPublicGet, { id: link.id }, platform)).resolves.toMatchObject({ return_url: url });
    const page = await system.bus.request(
      subjects.linksList,
      { limit: 100, cursor: null, status: null, shop_id: shopId, order_id: null },
      apiKey(merchant),
    );
    expect(page.payment_links.find((l) => l.id === link.id)?.return_url).toBe(url);
  });

  it('gives return_url as null where the create had none', async () => {
    const link = await system.createLink(apiKey(merchant), { shop_id: shopId });
    expect(link.return_url).toBeNull();
    await expect(system.bus.request(subjects.linksPublicGet, { id: link.id }, platform)).resolves.toMatchObject({ return_url: null });
  });

  it('keeps both rates on the stored link so a later method selection can recompute', async () => {
    const link = await system.createLink(apiKey(merchant), { shop_id: shopId });
    const rows = await system.linksDb.query<{ crypto_bps: number; sbp_bps: number; merchant_id: string }>(
      'SELECT crypto_bps, sbp_bps, merchant_id FROM payment_links WHERE id = $1',
      [link.id],
    );
    expect(rows[0]).toEqual({ crypto_bps: 150, sbp_bps: 70, merchant_id: merchant });
  });

  it.each([
    ['merchant', { payer_amount: '100.00', merchant_credit: '97.50', platform_revenue: '2.50' }],
    ['client', { payer_amount: '102.50', merchant_credit: '100.00', platform_revenue: '2.50' }],
  ] as const)('prices a link of a shop where the %s pays the fee', async (feePayer, amounts) => {
    const shop = await system.createShop(merchant, { fee_payer: feePayer, crypto_bps: 250 });
    const link = await system.createLink(apiKey(merchant), { shop_id: shop, amount_kopecks: 10000 });
    expect(link).toMatchObject({ amount: '100.00', fee_bps: 250, fee_payer: feePayer, ...amounts });
  });

  it('answers 404 for an unknown shop', async () => {
    await expect(system.createLink(apiKey(merchant), { shop_id: 987654321 })).rejects.toMatchObject({
      kind: 'not_found',
      code: 'common.err.not_found',
    });
  });

  it("answers 403 for another merchant's shop", async () => {
    await expect(system.createLink(apiKey(stranger), { shop_id: shopId })).rejects.toMatchObject({
      kind: 'forbidden',
      code: 'common.err.forbidden',
    });
  });

  it.each(['pending', 'rejected', 'blocked'] as const)('answers 422 shop.err.not_approved for a %s shop', async (status) => {
    const shop = await system.createShop(merchant, { status });
    await expect(system.createLink(apiKey(merchant), { shop_id: shop })).rejects.toMatchObject({
      kind: 'unprocessable',
      code: 'shop.err.not_approved',
    });
  });

  it('refuses a session create while the account email is unconfirmed', async () => {
    await expect(system.createLink(session(merchant, false), { shop_id: shopId })).rejects.toMatchObject({
      kind: 'forbidden',
      code: 'account.err.email_not_confirmed',
    });
    await expect(system.createLink(session(merchant, true), { shop_id: shopId })).resolves.toMatchObject({ status: 'pending' });
  });

  it('lets API keys create whether or not the email is confirmed', async () => {
    await expect(system.createLink(apiKey(merchant, false), { shop_id: shopId })).resolves.toMatchObject({ status: 'pending' });
  });

  it('checks existence and ownership before the email, and the email before the shop state', async () => {
    const unapproved = await system.createShop(merchant, { status: 'pending' });
    await expect(system.createLink(session(merchant, false), { shop_id: 987654321 })).rejects.toMatchObject({ code: 'common.err.not_found' });
    await expect(system.createLink(session(stranger, false), { shop_id: shopId })).rejects.toMatchObject({ code: 'common.err.forbidden' });
    await expect(system.createLink(session(merchant, false), { shop_id: unapproved })).rejects.toMatchObject({
      code: 'account.err.email_not_confirmed',
    });
  });

  it("takes the shop from a cashier key when shop_id is omitted or equal to the key's shop", async () => {
    const { shop_id: omitted } = await system.createLink(cashier(merchant, shopId), {});
    const { shop_id: same } = await system.createLink(cashier(merchant, shopId), { shop_id: shopId });
    expect([omitted, same]).toEqual([shopId, shopId]);
  });

  it('answers 403 when a cashier key names another shop than its own', async () => {
    const other = await system.createShop(merchant);
    await expect(system.createLink(cashier(merchant, shopId), { shop_id: other })).rejects.toMatchObject({
      code: 'common.err.forbidden',
      message: "shop_id does not match the cashier key's shop",
    });
  });

  it('answers 400 naming shop_id when an account key omits it', async () => {
    const error = await system.createLink(apiKey(merchant), {}).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'common.err.validation_failed',
      details: [{ field: 'shop_id', code: 'invalid_type', message: 'is required' }],
    });
  });

  it('refuses a platform service identity', async () => {
    await expect(system.createLink(platform, { shop_id: shopId })).rejects.toMatchObject({ code: 'common.err.forbidden' });
  });
});
