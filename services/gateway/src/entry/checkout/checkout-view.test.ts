import type { BuyerLinkView } from '@pl/contracts';
import { renderCheckoutMain, renderPanel, RETURN_AFTER_SECONDS } from './checkout-view';

const NOW = new Date('2026-11-22T10:00:00+03:00');

const link = (over: Partial<BuyerLinkView> = {}): BuyerLinkView => ({
  id: '5b1c3b9e-8f0e-4a57-9d7c-0b6a4f7f2c11',
  shop_id: 1,
  description: 'Coffee',
  return_url: null,
  currency: 'RUB',
  amount: '1000.00',
  amount_refunded: '0.00',
  fee_bps: 100,
  fee_payer: 'client',
  payer_amount: '1010.00',
  status: 'pending',
  failure_reason: null,
  gateway_provider: null,
  gateway_payment_id: null,
  to_currency: null,
  network: null,
  deposit_address: null,
  payer_currency: null,
  payer_crypto_amount: null,
  qr: null,
  checkout_url: 'http://localhost:8080/p/5b1c3b9e-8f0e-4a57-9d7c-0b6a4f7f2c11',
  pay_url: 'http://localhost:8080/p/5b1c3b9e-8f0e-4a57-9d7c-0b6a4f7f2c11',
  paymentUrl: 'http://localhost:8080/p/5b1c3b9e-8f0e-4a57-9d7c-0b6a4f7f2c11',
  expires_at: '2026-11-22T11:30:00+03:00',
  paid_at: null,
  created_at: '2026-11-22T09:30:00+03:00',
  updated_at: '2026-11-22T09:30:00+03:00',
  shop_name: 'Shop',
  livemode: true,
  methods: { sbp: true, crypto_networks: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON'] },
  payment_progress: null,
  ...over,
});

const CRYPTO_SELECTED: Partial<BuyerLinkView> = {
  gateway_provider: 'heleket',
  gateway_payment_id: 'u-1',
  to_currency: 'USDT',
  network: 'USDT-TRC20',
  deposit_address: 'TXYZabc123',
  payer_currency: 'USDT',
  payer_crypto_amount: '10.630000',
  qr: 'TXYZabc123',
};

const render = async (over: Partial<BuyerLinkView> = {}, lang: 'ru' | 'en' = 'en') => (await renderPanel(link(over), lang, NOW)).value;

describe('renderPanel: methods and the payment in progress', () => {
  it('offers only the methods the view says are offered now, and says so when none is', async () => {
    const page = await render({ methods: { sbp: false, crypto_networks: ['BTC-BTC', 'USDT-TRC20'] } });
    expect(page.match(/type="radio"/g)).toHaveLength(2);
    expect(page).not.toContain('value="sbp"');
    expect(page.indexOf('value="USDT-TRC20"')).toBeLessThan(page.indexOf('value="BTC-BTC"'));
    const sbpOnly = await render({ methods: { sbp: true, crypto_networks: [] } });
    expect(sbpOnly).not.toContain('id="crypto-label"');
    const none = await render({ methods: { sbp: false, crypto_networks: [] } }, 'ru');
    expect(none).toContain('data-testid="no-methods"');
    expect(none).toContain('Сейчас нет доступных способов оплаты');
    expect(none).not.toContain('type="submit"');
  });

  it('warns to send crypto only on its network, and offers the bank app link to phones only', async () => {
    const crypto = await render(CRYPTO_SELECTED);
    expect(crypto).toContain('data-testid="network-warning"');
    expect(crypto).toContain('Send only on the TRC-20 (Tron) network.');
    const sbp = await render({
      network: 'SBP',
      deposit_address: 'AS1X',
      qr: 'https://qr.nspk.ru/AS1X?type=02',
      payer_currency: 'RUB',
      to_currency: 'RUB',
    });
    expect(sbp).not.toContain('network-warning');
    expect(sbp).toMatch(/<p class="phone-only"><a class="button secondary" href="https:\/\/qr.nspk.ru\/AS1X\?type=02"/);
  });

  it('says a payment is confirming, and shows what remains to send of a part payment', async () => {
    const confirming = await render({ ...CRYPTO_SELECTED, payment_progress: { status: 'confirming', remaining_crypto_amount: null } }, 'ru');
    expect(confirming).toContain('ждёт подтверждений сети');
    expect(confirming).not.toContain('data-testid="remainder"');
    const part = await render({ ...CRYPTO_SELECTED, payment_progress: { status: 'partially_paid', remaining_crypto_amount: '2.500000' } });
    expect(part).toContain('data-testid="remainder"');
    expect(part).toMatch(/Send the remaining 2\.500000\s?USDT to the same address\./u);
    expect(part).toContain('data-copy="2.500000"');
  });
});

describe('renderPanel', () => {
  it('offers every method and counts down while pending with nothing chosen yet', async () => {
    const page = await render();
    expect(page).toContain('id="method-form"');
    expect(page.match(/type="radio"/g)).toHaveLength(7);
    expect(page).not.toContain(' checked');
    expect(page).toContain('>01:30:00<');
    expect(page).not.toContain('id="details"');
  });

  it('shows the fee line only when the buyer pays part of the fee', async () => {
    expect(await render()).toContain('data-testid="fee"');
    expect(await render({ fee_payer: 'merchant', payer_amount: '1000.00' })).not.toContain('data-testid="fee"');
  });

  it('escapes merchant text so a shop name cannot inject markup', async () => {
    const page = await render({ shop_name: '<img src=x onerror=alert(1)>', description: '"><script>' });
    expect(page).not.toMatch(/<img|<script/);
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('shows merchant text in its own bidirectional isolate, so right-to-left names cannot reorder the page', async () => {
    const page = await render({ shop_name: 'מאפייה 24', description: 'Кофе <x>' });
    expect(page).toContain('<h1 id="shop-name"><bdi>מאפייה 24</bdi></h1>');
    expect(page).toMatch(/<p class="description"><span class="sr-only">[^<]+<\/span><bdi>Кофе &lt;x&gt;<\/bdi><\/p>/);
  });

  it('shows the chosen network checked, its exact coin amount, address and a QR', async () => {
    const page = await render({
      network: 'USDT-TRC20',
      deposit_address: 'TAddr',
      payer_currency: 'USDT',
      to_currency: 'USDT',
      payer_crypto_amount: '10.631579',
      qr: 'tron:TAddr?amount=10.631579',
      gateway_provider: 'sandbox',
      gateway_payment_id: 'sbx_x',
    });
    expect(page).toMatch(/value="USDT-TRC20" checked/);
    expect(page).toContain('data-copy="10.631579"');
    expect(page).toContain('data-copy="TAddr"');
    expect(page).toMatch(/<svg class="qr-code" role="img" aria-label="QR code to pay with USDT · TRC-20 \(Tron\)"/);
    expect(page).toContain('href="tron:TAddr?amount=10.631579"');
  });

  it('never turns a QR payload with an unknown scheme into a link', async () => {
    const page = await render({ network: 'SBP', deposit_address: 'AS1', qr: 'javascript:alert(1)' });
    expect(page).not.toContain('href="javascript:');
  });

  it.each(['paid', 'expired', 'canceled', 'failed'] as const)('shows a final %s view with no way to pay', async (status) => {
    const page = await render(
      {
        status,
        paid_at: status === 'paid' ? '2026-11-22T09:45:00+03:00' : null,
        network: 'SBP',
        deposit_address: 'AS1',
        qr: 'https://qr.nspk.ru/AS1',
      },
      'ru',
    );
    expect(page).toContain(`data-testid="final-${status}"`);
    expect(page).not.toMatch(/<form|<button|id="countdown"|qr-code/);
  });

  it('says when the payment was made on the success view', async () => {
    const page = await render({ status: 'paid', paid_at: '2026-11-22T09:45:00+03:00' });
    expect(page).toContain('<time datetime="2026-11-22T09:45:00+03:00" data-testid="paid-at">22 November 2026 at 09:45 (Moscow time)</time>');
  });

  describe('the way back to the shop', () => {
    const url = 'https://shop.example/thanks?order=42&x="><script>alert(1)</script>';
    const escaped = 'https://shop.example/thanks?order=42&amp;x=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;';

    it.each([
      ['paid', 'ru', 'Вернуться в магазин'],
      ['expired', 'en', 'Return to the shop'],
      ['canceled', 'ru', 'Вернуться в магазин'],
      ['failed', 'en', 'Return to the shop'],
    ] as const)('links a %s link back to its return_url (%s), escaped', async (status, lang, label) => {
      const page = await render({ status, return_url: url, paid_at: status === 'paid' ? '2026-11-22T09:45:00+03:00' : null }, lang);
      expect(page).toContain(`href="${escaped}" rel="noreferrer" data-testid="return-to-shop"`);
      expect(page).toContain(`>${label}</a>`);
      expect(page).not.toContain('<script>');
    });

    it('sends the buyer back by itself only once the link is paid', async () => {
      expect(await render({ status: 'paid', return_url: url })).toContain(`data-return-after-ms="${RETURN_AFTER_SECONDS * 1000}"`);
      expect(await render({ status: 'expired', return_url: url })).not.toContain('data-return-after-ms');
    });

    it('offers no way back while pending, nor without a return_url', async () => {
      expect(await render({ return_url: url })).not.toContain('return-to-shop');
      expect(await render({ status: 'paid', return_url: null })).not.toContain('return-to-shop');
    });
  });

  describe('a test link', () => {
    const selected = { network: 'SBP', deposit_address: 'AS1', qr: 'https://qr.nspk.ru/AS1', gateway_provider: 'sandbox' };
    const main = async (over: Partial<BuyerLinkView>, lang: 'ru' | 'en') => (await renderCheckoutMain(link(over), lang, NOW)).value;

    it.each([
      ['ru', 'Тестовый режим', 'Смоделировать успешную оплату', 'Смоделировать неудачную оплату'],
      ['en', 'Test mode', 'Simulate successful payment', 'Simulate failed payment'],
    ] as const)('says so in a banner and, once a method is chosen, offers to simulate either outcome (%s)', async (lang, banner, paid, failed) => {
      const page = await main({ livemode: false, ...selected }, lang);
      expect(page).toMatch(
        new RegExp(
          `<div class="test-banner" role="note" aria-labelledby="test-mode-title"[^>]*>\\s*<p><strong id="test-mode-title">${banner}</strong>`,
        ),
      );
      expect(page).toContain(`<button type="button" class="simulate-paid" data-simulate="paid">${paid}</button>`);
      expect(page).toContain(`<button type="button" class="simulate-failed" data-simulate="failed">${failed}</button>`);
      // The buttons sit with the payment details, inside the panel the script swaps, so a final panel drops them.
      expect(page.indexOf('data-simulate="paid"')).toBeGreaterThan(page.indexOf('id="details"'));
    });

    it('offers no simulation before a method is chosen, but keeps the banner', async () => {
      const page = await main({ livemode: false }, 'en');
      expect(page).toContain('data-testid="test-mode-banner"');
      expect(page).not.toContain('data-simulate');
    });

    it.each(['paid', 'failed'] as const)('keeps the banner on the final %s page, with nothing left to simulate', async (status) => {
      const page = await main({ livemode: false, status, paid_at: status === 'paid' ? '2026-11-22T09:45:00+03:00' : null, ...selected }, 'ru');
      expect(page).toContain('data-testid="test-mode-banner"');
      expect(page).toContain(`data-testid="final-${status}"`);
      expect(page).not.toContain('data-simulate');
    });

    it.each(['ru', 'en'] as const)('is the only kind of link that shows the banner or the buttons (%s)', async (lang) => {
      const page = await main({ livemode: true, ...selected }, lang);
      expect(page).toContain('id="details"');
      expect(page).not.toMatch(/test-banner|test-mode|simulat|Тестов|Test mode|моделир/i);
    });
  });
});
