// Live links paid through the real adapters (Raiffeisen SBP, Heleket) against their local fakes, across the real
// gateway, links, shops and notifier, Postgres, NATS and Kafka (docs/providers.md): select makes the provider's
// payment, the provider's signed callback reaches the gateway over HTTP, and the shop gets payment.succeeded.
import { startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { createLiveLink } from '../support/live-links';

let sys: TestSystem;
let receiver: WebhookReceiver;
let merchant: TestMerchant;
let shop: TestShop;

beforeAll(async () => {
  [sys, receiver] = await Promise.all([startSystem({ providerFakes: true }), WebhookReceiver.start()]);
  merchant = await sys.merchant();
  shop = await sys.shop(merchant.id, { webhookUrl: receiver.url });
});
afterAll(async () => {
  await receiver?.close();
  await sys?.stop();
});

const liveLink = (amount: string): Promise<string> => createLiveLink(sys, merchant, shop, amount, 'live');

const succeeded = (linkId: string) => receiver.waitFor((h) => h.json?.event === 'payment.succeeded' && h.json?.data?.payment_link_id === linkId);

describe('a live payment through the real adapters and their fakes', () => {
  it('SBP: select registers a dynamic QR at Raiffeisen, its SUCCESS callback pays the link and the shop hears payment.succeeded', async () => {
    const id = await liveLink('1259.19');
    const selected = await sys.http.post(`/p/${id}/select`, { method: 'sbp' });
    expect(selected.status).toBe(200);
    const qr = sys.fakes.raiffeisen.qrOf(`${id}-1`);
    expect(qr).toBeDefined();
    expect(selected.body).toMatchObject({ gateway_provider: 'raiffeisen_sbp', gateway_payment_id: qr!.qrId, qr: selected.body.deposit_address });
    expect(String(selected.body.deposit_address)).toMatch(/^https:\/\/qr\.nspk\.ru\//);

    const webhook = succeeded(id);
    const [delivery] = await sys.fakes.raiffeisen.pay(qr!.qrId);
    expect(delivery?.status).toBe(200);
    const hit = await webhook;
    expect(hit.json.data).toMatchObject({ payment_link_id: id, status: 'paid', amount: '1259.19' });
    const link = await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys });
    expect(link.body).toMatchObject({ status: 'paid', gateway_provider: 'raiffeisen_sbp', gateway_payment_id: qr!.qrId });
  });

  it('crypto: select makes a Heleket invoice, its paid callback pays the link and the shop hears payment.succeeded', async () => {
    const id = await liveLink('2500.00');
    const selected = await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' });
    expect(selected.status).toBe(200);
    const invoice = sys.fakes.heleket.invoiceByOrder(`${id}-1`);
    expect(invoice).toBeDefined();
    expect(selected.body).toMatchObject({
      gateway_provider: 'heleket',
      gateway_payment_id: invoice!.uuid,
      deposit_address: invoice!.address,
      payer_crypto_amount: invoice!.payerAmount,
      network: 'USDT-TRC20',
    });

    const webhook = succeeded(id);
    sys.fakes.heleket.pay(invoice!.uuid);
    const hit = await webhook;
    expect(hit.json.data).toMatchObject({ payment_link_id: id, status: 'paid', amount: '2500.00' });
    const link = await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys });
    expect(link.body).toMatchObject({ status: 'paid', gateway_provider: 'heleket', gateway_payment_id: invoice!.uuid });
  });
});
