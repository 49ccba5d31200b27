// A shop's payment methods and what the live provider takes now (docs/providers.md, "A shop's methods"), across the
// real gateway, links, shops and notifier, Postgres, NATS and Kafka. The live provider is a stand-in implementing the
// provider interface: what it takes now (`methods`), its outage (`methods = null`), its callbacks.
import { randomUUID } from 'node:crypto';
import { CRYPTO_NETWORKS } from '@pl/contracts';
import { expectError } from '../support/http';
import { StandInProvider } from '../support/stand-in-provider';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

const provider = new StandInProvider('heleket', 'stand-in-callback-secret');
const EVERY_METHOD = { sbp: true, networks: CRYPTO_NETWORKS.map((network) => ({ network, minAmount: null, maxAmount: null })) };
let sys: TestSystem;
let merchant: TestMerchant;
let session: string;

beforeAll(async () => {
  sys = await startSystem({ liveProvider: provider });
  merchant = await sys.merchant();
  session = await sys.login(merchant);
});
afterAll(async () => {
  await sys?.stop();
});
beforeEach(() => {
  provider.mode = { kind: 'up' };
  provider.methods = EVERY_METHOD;
});

const patchShop = (shopId: number, body: unknown) =>
  sys.http.call('PATCH', `/api/v1/shops/${shopId}`, { body, headers: { Authorization: `Bearer ${session}` } });
const createLink = async (shop: TestShop, keys: Record<string, string> = merchant.keys): Promise<string> => {
  const res = await sys.http.post(
    '/merchant/v1/payment-links',
    { shop_id: shop.id, amount: '500.00', order_id: `o-${randomUUID()}` },
    { headers: keys },
  );
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const attemptCount = async (id: string) =>
  (await sys.sql<{ n: string }>('SELECT count(*) AS n FROM links.payment_attempts WHERE link_id = $1', [id]))[0]?.n;

describe("a shop's payment methods", () => {
  it('are SBP and all six networks for a new shop, on both route families, and PATCH merges a change of them', async () => {
    const shop = await sys.shop(merchant.id);
    const every = { sbp: true, crypto_networks: [...CRYPTO_NETWORKS] };
    expect((await sys.http.get(`/merchant/v1/shops/${shop.id}`, { headers: merchant.keys })).body.payment_methods).toEqual(every);
    expect((await sys.http.get(`/api/v1/shops/${shop.id}`, { headers: { Authorization: `Bearer ${session}` } })).body.payment_methods).toEqual(every);
    const changed = await patchShop(shop.id, { payment_methods: { crypto_networks: ['BTC-BTC', 'USDT-TRC20'] } });
    expect(changed.status).toBe(200);
    expect(changed.body.payment_methods).toEqual({ sbp: true, crypto_networks: ['BTC-BTC', 'USDT-TRC20'] });
    expectError(await patchShop(shop.id, { payment_methods: { sbp: false, crypto_networks: [] } }), 400, 'common.err.validation_failed');
    expectError(await patchShop(shop.id, { payment_methods: { crypto_networks: ['DOGE-DOGE'] } }), 400, 'common.err.validation_failed');
    expectError(await patchShop(shop.id, { payment_methods: { card: true } }), 400, 'common.err.validation_failed');
    expect((await sys.http.get(`/merchant/v1/shops/${shop.id}`, { headers: merchant.keys })).body.payment_methods).toEqual(
      changed.body.payment_methods,
    );
  });

  it('the checkout offers only the methods the shop has on, and a select of another is 422 method_unavailable with nothing stored', async () => {
    const shop = await sys.shop(merchant.id);
    expect((await patchShop(shop.id, { payment_methods: { sbp: false, crypto_networks: ['USDT-TRC20'] } })).status).toBe(200);
    const id = await createLink(shop);
    // links drops its copy of the shop on the shops.changed notice: the change shows at once.
    expect((await sys.http.get(`/p/${id}/status`)).body.methods).toEqual({ sbp: false, crypto_networks: ['USDT-TRC20'] });
    expectError(await sys.http.post(`/p/${id}/select`, { method: 'sbp' }), 422, 'payment_link.err.method_unavailable');
    expectError(await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'BTC-BTC' }), 422, 'payment_link.err.method_unavailable');
    expect(await attemptCount(id)).toBe('0');
    expect(provider.creates.filter((c) => c.linkId === id)).toHaveLength(0);
    expect((await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' })).status).toBe(200);
    expect(await attemptCount(id)).toBe('1');
  });

  it('holds for test links too, which the sandbox takes whatever the live provider says', async () => {
    const shop = await sys.shop(merchant.id);
    await patchShop(shop.id, { payment_methods: { crypto_networks: [] } });
    provider.methods = { sbp: false, networks: [] };
    const id = await createLink(shop, merchant.testKeys);
    expect((await sys.http.get(`/p/${id}/status`)).body.methods).toEqual({ sbp: true, crypto_networks: [] });
    expectError(await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'TON-TON' }), 422, 'payment_link.err.method_unavailable');
    expect((await sys.http.post(`/p/${id}/select`, { method: 'sbp' })).status).toBe(200);
  });
});

describe('what the live provider takes now', () => {
  it('is not offered when the provider does not take it now, and its select is 422 with nothing stored', async () => {
    const shop = await sys.shop(merchant.id);
    const id = await createLink(shop);
    provider.methods = { sbp: true, networks: [{ network: 'USDT-TRC20', minAmount: '1.00', maxAmount: '1000.00' }] };
    expect((await sys.http.get(`/p/${id}/status`)).body.methods).toEqual({ sbp: true, crypto_networks: ['USDT-TRC20'] });
    const refused = await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'ETH-ETH' });
    expectError(refused, 422, 'payment_link.err.method_unavailable');
    expect(await attemptCount(id)).toBe('0');
  });

  it('falls back to the shop’s methods when the provider cannot tell, and its refusal of the create answers the select', async () => {
    const shop = await sys.shop(merchant.id);
    const id = await createLink(shop);
    provider.methods = null;
    expect((await sys.http.get(`/p/${id}/status`)).body.methods).toEqual({ sbp: true, crypto_networks: [...CRYPTO_NETWORKS] });
    provider.mode = { kind: 'refusing', message: 'Minimum amount 10 BTC' };
    const refused = await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'BTC-BTC' });
    expectError(refused, 422, 'payment_link.err.method_unavailable');
    expect(refused.body.error.details).toEqual([{ field: 'method', code: 'provider_refused', message: 'Minimum amount 10 BTC' }]);
  });
});

describe("the selected payment's progress", () => {
  const callback = (orderId: string, status: 'confirming' | 'partially_paid' | 'paid', remaining?: string) => {
    const signed = provider.callback({
      order_id: orderId,
      gateway_payment_id: StandInProvider.paymentIdOf(orderId),
      status,
      ...(remaining === undefined ? {} : { remaining_crypto_amount: remaining }),
    });
    return sys.http.post('/callbacks/v1/heleket', signed.body, { headers: signed.headers });
  };

  it('shows confirming, then what remains to send, on the checkout while the link stays pending; a new select starts afresh', async () => {
    const shop = await sys.shop(merchant.id);
    const id = await createLink(shop);
    expect((await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' })).body.payment_progress).toBeNull();
    expect((await callback(`${id}-1`, 'confirming')).status).toBe(200);
    expect((await sys.http.get(`/p/${id}/status`)).body).toMatchObject({
      status: 'pending',
      payment_progress: { status: 'confirming', remaining_crypto_amount: null },
    });
    expect((await callback(`${id}-1`, 'partially_paid', '1.250000')).status).toBe(200);
    expect((await sys.http.get(`/p/${id}/status`)).body).toMatchObject({
      status: 'pending',
      payment_progress: { status: 'partially_paid', remaining_crypto_amount: '1.250000' },
    });
    const [row] = await sys.sql<{ provider_status: string; payment_status: string }>(
      'SELECT provider_status, payment_status FROM links.payment_attempts WHERE order_id = $1',
      [`${id}-1`],
    );
    expect(row).toEqual({ provider_status: 'partially_paid', payment_status: 'partially_paid' });
    expect((await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'TON-TON' })).body.payment_progress).toBeNull();
    expect((await callback(`${id}-2`, 'paid')).status).toBe(200);
    expect((await sys.http.get(`/p/${id}/status`)).body).toMatchObject({ status: 'paid', payment_progress: null });
  });
});

describe("a link's attempts, for the dashboard", () => {
  it('lists each select with its provider, payment id, state and the provider’s last word; another merchant gets 403', async () => {
    const shop = await sys.shop(merchant.id);
    const id = await createLink(shop);
    await sys.http.post(`/p/${id}/select`, { method: 'sbp' });
    await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' });
    const signed = provider.callback({ order_id: `${id}-2`, gateway_payment_id: StandInProvider.paymentIdOf(`${id}-2`), status: 'confirming' });
    expect((await sys.http.post('/callbacks/v1/heleket', signed.body, { headers: signed.headers })).status).toBe(200);
    const res = await sys.http.get(`/api/v1/payment-links/${id}/attempts`, { headers: { Authorization: `Bearer ${session}` } });
    expect(res.status).toBe(200);
    expect(res.body.attempts).toEqual([
      expect.objectContaining({
        n: 1,
        order_id: `${id}-1`,
        provider: 'heleket',
        method: 'sbp',
        network: null,
        gateway_payment_id: `sip_${id}-1`,
        state: 'superseded',
      }),
      expect.objectContaining({
        n: 2,
        method: 'crypto',
        network: 'USDT-TRC20',
        gateway_payment_id: `sip_${id}-2`,
        state: 'pending',
        provider_status: 'confirming',
      }),
    ]);
    const other = await sys.merchant();
    const otherSession = await sys.login(other);
    expectError(
      await sys.http.get(`/api/v1/payment-links/${id}/attempts`, { headers: { Authorization: `Bearer ${otherSession}` } }),
      403,
      'common.err.forbidden',
    );
  });
});
