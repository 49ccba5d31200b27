// What Heleket takes now and what it says of a payment in progress, through the real Heleket adapter and its local fake
// (docs/providers.md, ADR 0023), across the real gateway, links, shops and notifier, Postgres, NATS and Kafka: a network
// its services list reports disabled is not offered and its select stores nothing; `confirm_check` and
// `wrong_amount_waiting` show on the buyer view while the link stays pending.
import { expectError } from '../support/http';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { createLiveLink } from '../support/live-links';

let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;

beforeAll(async () => {
  sys = await startSystem({ providerFakes: true });
  // Before the first read of the list (links keeps it 10 minutes): Bitcoin is off in the merchant profile.
  sys.fakes.heleket.services = sys.fakes.heleket.services.map((s) => (s.currency === 'BTC' ? { ...s, is_enabled: false } : s));
  merchant = await sys.merchant();
  shop = await sys.shop(merchant.id);
});
afterAll(async () => {
  await sys?.stop();
});

const liveLink = (): Promise<string> => createLiveLink(sys, merchant, shop, '2500.00', 'h');

describe('a live crypto link at Heleket', () => {
  it("does not offer a network Heleket's services list reports disabled, and its select is 422 with nothing stored", async () => {
    const id = await liveLink();
    const view = await sys.http.get(`/p/${id}/status`);
    expect(view.body.methods).toEqual({ sbp: true, crypto_networks: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'ETH-ETH', 'TON-TON'] });
    const creates = sys.fakes.heleket.count('/v1/payment');
    expectError(await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'BTC-BTC' }), 422, 'payment_link.err.method_unavailable');
    expect(sys.fakes.heleket.count('/v1/payment')).toBe(creates);
    expect(await sys.sql('SELECT 1 FROM links.payment_attempts WHERE link_id = $1', [id])).toEqual([]);
  });

  it('shows confirm_check as confirming and wrong_amount_waiting as what remains to send, the link pending', async () => {
    const id = await liveLink();
    expect((await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' })).status).toBe(200);
    const invoice = sys.fakes.heleket.invoiceByOrder(`${id}-1`)!;
    const sent = sys.fakes.heleket.deliveries.length;
    sys.fakes.heleket.confirmCheck(invoice.uuid);
    await sys.fakes.heleket.deliveriesReach(sent + 1);
    expect((await sys.http.get(`/p/${id}/status`)).body).toMatchObject({
      status: 'pending',
      payment_progress: { status: 'confirming', remaining_crypto_amount: null },
    });
    sys.fakes.heleket.payPart(invoice.uuid, '1.000000');
    await sys.fakes.heleket.deliveriesReach(sent + 2);
    const part = (await sys.http.get(`/p/${id}/status`)).body;
    expect(part).toMatchObject({ status: 'pending', payment_progress: { status: 'partially_paid' } });
    expect(Number(part.payment_progress.remaining_crypto_amount)).toBeCloseTo(Number(invoice.payerAmount) - 1, 6);
    const [attempt] = await sys.sql<{ provider_status: string }>('SELECT provider_status FROM links.payment_attempts WHERE link_id = $1', [id]);
    expect(attempt?.provider_status).toBe('wrong_amount_waiting');
  });
});
