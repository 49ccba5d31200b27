import { randomUUID } from 'node:crypto';
import { buyerLinkView, subjects, type BuyerLinkView, type PaymentLink } from '@pl/contracts';
import { apiKey, platform, startLinksSystem, type LinksSystem } from './support/links-system';

describe('links.select and links.public_get', () => {
  let system: LinksSystem;
  const merchant = randomUUID();
  let shopId: number;

  const select = (id: string, method: 'crypto' | 'sbp', network: string | null = null): Promise<BuyerLinkView> =>
    // The network is cast so the test can send what the contract refuses.
    system.bus.request(subjects.linksSelect, { id, method, network: network as 'USDT-TRC20' | null }, platform);
  const merchantView = (id: string): Promise<PaymentLink> => system.bus.request(subjects.linksGet, { id }, apiKey(merchant));
  const newLink = (amount = 10000) => system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: amount, order_id: 'ord-1' });

  beforeAll(async () => {
    system = await startLinksSystem('linksselect');
    shopId = await system.createShop(merchant, { crypto_bps: 100, sbp_bps: 250, fee_payer: 'client' });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('fills the gateway fields for a crypto network and answers the buyer-safe view with the shop name', async () => {
    const link = await newLink();
    const view = await select(link.id, 'crypto', 'USDT-TRC20');
    expect(buyerLinkView.strict().parse(view)).toEqual(view);
    for (const hidden of ['merchant_credit', 'platform_revenue', 'fee_percent_bp', 'order_id']) expect(view).not.toHaveProperty(hidden);
    expect(view.shop_name).toMatch(/^Shop /);
    // 100.00 at 1 % paid by the client is 101.00; at 95 RUB per USDT that is 1.063158 USDT rounded up.
    expect(view).toMatchObject({
      status: 'pending',
      fee_bps: 100,
      payer_amount: '101.00',
      gateway_provider: 'sandbox',
      gateway_payment_id: `sbx_${link.id}`,
      to_currency: 'USDT',
      payer_currency: 'USDT',
      network: 'USDT-TRC20',
      payer_crypto_amount: '1.063158',
    });
    expect(view.deposit_address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(view.qr).toBe(`tron:${view.deposit_address}?amount=1.063158&token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t`);
    await expect(merchantView(link.id)).resolves.toMatchObject({ network: 'USDT-TRC20', merchant_credit: '100.00', order_id: 'ord-1' });
  });

  it('gives the same address and QR when the same network is selected again', async () => {
    const link = await newLink();
    const first = await select(link.id, 'crypto', 'BTC-BTC');
    const again = await select(link.id, 'crypto', 'BTC-BTC');
    expect(again).toEqual({ ...first, updated_at: expect.any(String) });
    expect(first.payer_crypto_amount).toBe('0.00001554');
  });

  it('switches to the SBP rate and recomputes the three amounts, keeping the money invariant', async () => {
    const link = await newLink(12345);
    const view = await select(link.id, 'sbp');
    // fee = round_half_up(123.45 × 2.5 %) = 3.09; the client pays it on top.
    expect(view).toMatchObject({
      fee_bps: 250,
      payer_amount: '126.54',
      to_currency: 'RUB',
      payer_currency: 'RUB',
      network: 'SBP',
      payer_crypto_amount: null,
      gateway_provider: 'sandbox',
      gateway_payment_id: `sbx_${link.id}`,
    });
    expect(view.qr).toMatch(/^https:\/\/qr\.nspk\.ru\/AS1[A-Z0-9]{29}\?.*&sum=12654&cur=RUB/);
    expect(view.deposit_address).toMatch(/^AS1[A-Z0-9]{29}$/);
    const full = await merchantView(link.id);
    expect(full).toMatchObject({ fee_bps: 250, fee_percent_bp: 100, payer_amount: '126.54', merchant_credit: '123.45', platform_revenue: '3.09' });
  });

  it('lets the buyer switch from SBP back to crypto, restoring the crypto rate', async () => {
    const link = await newLink();
    await select(link.id, 'sbp');
    const view = await select(link.id, 'crypto', 'ETH-ETH');
    expect(view).toMatchObject({ fee_bps: 100, payer_amount: '101.00', network: 'ETH-ETH', payer_crypto_amount: '0.000404000000000000' });
    await expect(merchantView(link.id)).resolves.toMatchObject({ platform_revenue: '1.00', merchant_credit: '100.00' });
  });

  it('answers 409 payment_link.err.not_pending for a canceled link and leaves it unselected', async () => {
    const link = await newLink();
    await system.bus.request(subjects.linksCancel, { id: link.id }, apiKey(merchant));
    await expect(select(link.id, 'crypto', 'TON-TON')).rejects.toMatchObject({
      kind: 'conflict',
      code: 'payment_link.err.not_pending',
      message: 'Payment link is canceled, not pending',
    });
    await expect(merchantView(link.id)).resolves.toMatchObject({ network: null, gateway_provider: null });
  });

  it('answers 409 for a link whose lifetime has elapsed, which reads as expired from then on', async () => {
    const link = await newLink();
    await system.linksDb.query(
      "UPDATE payment_links SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE id = $1",
      [link.id],
    );
    await expect(select(link.id, 'sbp')).rejects.toMatchObject({ message: 'Payment link is expired, not pending' });
    await expect(merchantView(link.id)).resolves.toMatchObject({ status: 'expired', network: null });
  });

  it('refuses an unknown network, crypto without a network and SBP with one as validation errors', async () => {
    const link = await newLink();
    await expect(select(link.id, 'crypto', 'DOGE-DOGE')).rejects.toThrow();
    // Past the client's own check: the service's contract refuses it too.
    const raw = subjects.linksSelect.request.safeParse({ id: link.id, method: 'crypto', network: 'DOGE-DOGE' });
    expect(raw.success).toBe(false);
    await expect(select(link.id, 'crypto', null)).rejects.toMatchObject({ kind: 'validation', code: 'common.err.validation_failed' });
    await expect(select(link.id, 'sbp', 'USDT-TRC20')).rejects.toMatchObject({ kind: 'validation' });
  });

  it('answers 404 for an unknown link', async () => {
    await expect(select(randomUUID(), 'sbp')).rejects.toMatchObject({ code: 'common.err.not_found' });
    await expect(system.bus.request(subjects.linksPublicGet, { id: randomUUID() }, platform)).rejects.toMatchObject({
      code: 'common.err.not_found',
    });
  });

  it('refuses merchants: checkout is the gateway acting for a buyer', async () => {
    const link = await newLink();
    await expect(system.bus.request(subjects.linksSelect, { id: link.id, method: 'sbp', network: null }, apiKey(merchant))).rejects.toMatchObject({
      code: 'common.err.forbidden',
    });
    await expect(system.bus.request(subjects.linksPublicGet, { id: link.id }, apiKey(merchant))).rejects.toMatchObject({
      code: 'common.err.forbidden',
    });
  });

  it('shows the checkout page the buyer-safe view, a due link as expired', async () => {
    const link = await newLink();
    const view = await system.bus.request(subjects.linksPublicGet, { id: link.id }, platform);
    expect(buyerLinkView.strict().parse(view)).toEqual(view);
    expect(view).toMatchObject({ id: link.id, status: 'pending', network: null, checkout_url: link.checkout_url });
    await system.linksDb.query(
      "UPDATE payment_links SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE id = $1",
      [link.id],
    );
    await expect(system.bus.request(subjects.linksPublicGet, { id: link.id }, platform)).resolves.toMatchObject({ status: 'expired' });
  });
});
