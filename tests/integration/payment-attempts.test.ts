// Attempts and the provider boundary (docs/product-decisions.md, "Selecting a method: attempts"), across the real gateway,
// links, shops and notifier, Postgres, NATS and Kafka. The live provider is a stand-in implementing the provider
// interface (per-attempt payment ids, an outage, a refusal), wired as a real adapter is; the sandbox keeps test links.
import { randomUUID } from 'node:crypto';
import { eventually } from '@pl/testing';
import { expectError, type ApiResponse } from '../support/http';
import { StandInProvider } from '../support/stand-in-provider';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

const provider = new StandInProvider('raiffeisen_sbp', 'stand-in-callback-secret');
let sys: TestSystem;
let sandboxSys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;

beforeAll(async () => {
  [sys, sandboxSys] = await Promise.all([startSystem({ liveProvider: provider }), startSystem()]);
  merchant = await sys.merchant();
  // SBP 300 bps, crypto 100 bps, the client pays the fee: each method asks a different amount.
  shop = await sys.shop(merchant.id, { feePayer: 'client', cryptoBps: 100, sbpBps: 300 });
});
afterAll(async () => {
  await Promise.all([sys?.stop(), sandboxSys?.stop()]);
});
beforeEach(() => {
  provider.mode = { kind: 'up' };
});

const createLink = async (s: TestSystem = sys, m: TestMerchant = merchant, sh: TestShop = shop, keys = m.keys): Promise<string> => {
  const res = await s.http.post(
    '/merchant/v1/payment-links',
    { shop_id: sh.id, amount: '1000.00', order_id: `order-${randomUUID()}` },
    { headers: keys },
  );
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const select = (id: string, body: unknown, s: TestSystem = sys): Promise<ApiResponse> => s.http.post(`/p/${id}/select`, body);
const attempts = (id: string, s: TestSystem = sys) =>
  s.sql<{
    n: number;
    order_id: string;
    provider: string;
    method: string;
    network_asked: string | null;
    payer_amount: string;
    state: string;
    gateway_payment_id: string | null;
  }>(
    'SELECT n, order_id, provider, method, network_asked, payer_amount, state, gateway_payment_id FROM links.payment_attempts WHERE link_id = $1 ORDER BY n',
    [id],
  );
const callback = (orderId: string, status: 'paid' | 'failed') => {
  const signed = provider.callback({ order_id: orderId, gateway_payment_id: StandInProvider.paymentIdOf(orderId), status });
  return sys.http.post('/callbacks/v1/raiffeisen-sbp', signed.body, { headers: signed.headers });
};
const link = async (id: string) => (await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys })).body;

describe('select makes attempts', () => {
  it('makes attempt n with order id <link id>-<n> at the live provider, and re-selection makes n+1 and cancels n', async () => {
    const id = await createLink();
    const first = await select(id, { method: 'sbp' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      gateway_provider: 'raiffeisen_sbp',
      gateway_payment_id: `sip_${id}-1`,
      payer_amount: '1030.00',
      network: 'SBP',
    });
    const second = await select(id, { method: 'crypto', network: 'USDT-TRC20' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ gateway_payment_id: `sip_${id}-2`, payer_amount: '1010.00', fee_bps: 100 });
    await provider.canceled(`sip_${id}-1`);
    expect(await attempts(id)).toEqual([
      {
        n: 1,
        order_id: `${id}-1`,
        provider: 'raiffeisen_sbp',
        method: 'sbp',
        network_asked: null,
        payer_amount: '103000',
        state: 'superseded',
        gateway_payment_id: `sip_${id}-1`,
      },
      {
        n: 2,
        order_id: `${id}-2`,
        provider: 'raiffeisen_sbp',
        method: 'crypto',
        network_asked: 'USDT-TRC20',
        payer_amount: '101000',
        state: 'pending',
        gateway_payment_id: `sip_${id}-2`,
      },
    ]);
    expect(provider.creates.filter((c) => c.linkId === id).map((c) => c.orderId)).toEqual([`${id}-1`, `${id}-2`]);
  });

  it('keeps a test link on the sandbox, with attempts of its own', async () => {
    const id = await createLink(sys, merchant, shop, merchant.testKeys);
    const res = await select(id, { method: 'sbp' });
    expect(res.body).toMatchObject({ gateway_provider: 'sandbox', gateway_payment_id: sandboxPaymentId(id), livemode: false });
    expect(await attempts(id)).toEqual([expect.objectContaining({ order_id: `${id}-1`, provider: 'sandbox', state: 'pending' })]);
    expect(provider.creates.some((c) => c.linkId === id)).toBe(false);
  });
});

describe('the provider down or refusing', () => {
  it('answers 503 provider_unavailable with Retry-After, the link keeping its previous method; the attempt is unknown', async () => {
    const id = await createLink();
    expect((await select(id, { method: 'sbp' })).status).toBe(200);
    const before = await link(id);
    provider.mode = { kind: 'down' };
    const res = await select(id, { method: 'crypto', network: 'BTC-BTC' });
    expectError(res, 503, 'payment_link.err.provider_unavailable');
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const after = await link(id);
    expect({ ...after, updated_at: null }).toEqual({ ...before, updated_at: null });
    expect((await attempts(id)).map((a) => a.state)).toEqual(['pending', 'unknown']);
    // Recovered: the next select works, and replaces the first attempt (the unknown one is superseded too).
    provider.mode = { kind: 'up' };
    expect((await select(id, { method: 'sbp' })).body).toMatchObject({ gateway_payment_id: `sip_${id}-3` });
    expect((await attempts(id)).map((a) => a.state)).toEqual(['superseded', 'superseded', 'pending']);
  });

  it('answers 422 method_unavailable with the provider’s message when it refuses, nothing shown on the link', async () => {
    const id = await createLink();
    provider.mode = { kind: 'refusing', message: 'Amount exceeds the limit' };
    const res = await select(id, { method: 'sbp' });
    expectError(res, 422, 'payment_link.err.method_unavailable');
    expect(res.body.error.details).toEqual([{ field: 'method', code: 'provider_refused', message: 'Amount exceeds the limit' }]);
    expect(await link(id)).toMatchObject({ gateway_provider: null, gateway_payment_id: null, status: 'pending' });
    expect((await attempts(id)).map((a) => a.state)).toEqual(['refused']);
  });
});

describe('an answer that arrives after the link moved on', () => {
  /** A create the stand-in holds until `release()`: the select waits on its provider meanwhile. */
  const hold = () => {
    let release!: () => void;
    const until = new Promise<void>((resolve) => (release = resolve));
    provider.mode = { kind: 'held', until };
    return release;
  };
  const createArrived = (orderId: string) =>
    eventually(() => provider.creates.some((c) => c.orderId === orderId), `the create of ${orderId} at the provider`, 10_000);

  it('shows a newer select’s payment when that select overtook the held one, whose payment is superseded and canceled', async () => {
    const id = await createLink();
    const release = hold();
    const first = select(id, { method: 'sbp' });
    await createArrived(`${id}-1`);
    provider.mode = { kind: 'up' };
    const second = await select(id, { method: 'crypto', network: 'USDT-TRC20' });
    expect(second.body).toMatchObject({ gateway_payment_id: `sip_${id}-2`, payer_amount: '1010.00' });
    release();
    // The buyer of the overtaken select sees the link as the newer one left it.
    const res = await first;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ gateway_payment_id: `sip_${id}-2`, payer_amount: '1010.00', network: 'USDT-TRC20', payment_progress: null });
    await provider.canceled(`sip_${id}-1`);
    expect((await attempts(id)).map((a) => [a.state, a.gateway_payment_id])).toEqual([
      ['superseded', `sip_${id}-1`],
      ['pending', `sip_${id}-2`],
    ]);
    expect(await link(id)).toMatchObject({ status: 'pending', gateway_payment_id: `sip_${id}-2` });
  });

  it('answers 409 not_pending when the link was canceled during the call, its payment superseded and canceled, nothing shown', async () => {
    const id = await createLink();
    const release = hold();
    const pending = select(id, { method: 'sbp' });
    await createArrived(`${id}-1`);
    expect((await sys.http.post(`/merchant/v1/payment-links/${id}/cancel`, {}, { headers: merchant.keys })).status).toBe(200);
    release();
    expectError(await pending, 409, 'payment_link.err.not_pending');
    await provider.canceled(`sip_${id}-1`);
    expect((await attempts(id)).map((a) => [a.state, a.gateway_payment_id])).toEqual([['superseded', `sip_${id}-1`]]);
    expect(await link(id)).toMatchObject({ status: 'canceled', gateway_provider: null, gateway_payment_id: null });
  });
});

describe('a payment for any attempt', () => {
  it('pays the pending link once, at that attempt’s amounts; another attempt’s payment after is a duplicate', async () => {
    const id = await createLink();
    await select(id, { method: 'sbp' });
    await select(id, { method: 'crypto', network: 'USDT-TRC20' });
    // The buyer paid the first (SBP) QR after all: the link is paid at SBP's amounts.
    expect((await callback(`${id}-1`, 'paid')).status).toBe(200);
    expect(await link(id)).toMatchObject({ status: 'paid', gateway_payment_id: `sip_${id}-1`, payer_amount: '1030.00', fee_bps: 300 });
    // The repeat changes nothing; the second attempt's payment is recorded as a duplicate, once.
    expect((await callback(`${id}-1`, 'paid')).status).toBe(200);
    expect((await callback(`${id}-2`, 'paid')).status).toBe(200);
    expect((await callback(`${id}-2`, 'paid')).status).toBe(200);
    expect((await attempts(id)).map((a) => a.state)).toEqual(['paid', 'duplicate']);
    expect(await sys.sql('SELECT link_status, gateway_payment_id FROM links.unresolved_payments WHERE link_id = $1', [id])).toEqual([
      { link_status: 'paid', gateway_payment_id: `sip_${id}-2` },
    ]);
    expect(
      await sys.sql("SELECT count(*)::int AS n FROM links.outbox WHERE message_key = $1 AND payload->>'event' = 'payment.succeeded'", [id]),
    ).toEqual([{ n: 1 }]);
  });

  it('fails only the attempt when an attempt the link no longer shows fails', async () => {
    const id = await createLink();
    await select(id, { method: 'sbp' });
    await select(id, { method: 'sbp' });
    expect((await callback(`${id}-1`, 'failed')).status).toBe(200);
    expect(await link(id)).toMatchObject({ status: 'pending', gateway_payment_id: `sip_${id}-2` });
    expect((await attempts(id)).map((a) => a.state)).toEqual(['failed', 'pending']);
  });

  it('refuses a callback with a bad signature and changes nothing', async () => {
    const id = await createLink();
    await select(id, { method: 'sbp' });
    const body = JSON.stringify({ order_id: `${id}-1`, gateway_payment_id: `sip_${id}-1`, status: 'paid' });
    const res = await sys.http.post('/callbacks/v1/raiffeisen-sbp', body, {
      headers: { 'content-type': 'application/json', 'x-stand-in-signature': 'ab'.repeat(32) },
    });
    expectError(res, 401, 'common.err.unauthorized');
    expect(await link(id)).toMatchObject({ status: 'pending' });
  });
});

describe('the sandbox as the live provider (the default configuration)', () => {
  it('gives each select an attempt, and its callback pays the newest', async () => {
    const m = await sandboxSys.merchant();
    const s = await sandboxSys.shop(m.id);
    const id = await createLink(sandboxSys, m, s);
    await select(id, { method: 'sbp' }, sandboxSys);
    await select(id, { method: 'crypto', network: 'TON-TON' }, sandboxSys);
    expect((await sandboxSys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
    expect((await attempts(id, sandboxSys)).map((a) => [a.order_id, a.state])).toEqual([
      [`${id}-1`, 'superseded'],
      [`${id}-2`, 'paid'],
    ]);
  });
});

describe('refunds: recorded first, then the provider, then its outcome', () => {
  const refund = (id: string, amount: string) =>
    sys.http.post(`/merchant/v1/payment-links/${id}/refunds`, { amount }, { headers: { ...merchant.keys, 'Idempotency-Key': randomUUID() } });
  const available = async () => (await sys.http.get(`/merchant/v1/balance?shop_id=${shop.id}`, { headers: merchant.keys })).body.available as string;
  const paidLink = async () => {
    const id = await createLink();
    await select(id, { method: 'sbp' });
    expect((await callback(`${id}-1`, 'paid')).status).toBe(200);
    return id;
  };

  afterEach(() => {
    provider.refunds = 'accept';
  });

  it('hands an accepted refund to the provider of the paying attempt, by its order id, and keeps it pending', async () => {
    const id = await paidLink();
    const res = await refund(id, '100.00');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', gateway_refund_id: `sir_${res.body.id}` });
    expect(provider.refundCalls.find((c) => c.refundId === res.body.id)).toMatchObject({
      orderId: `${id}-1`,
      gatewayPaymentId: `sip_${id}-1`,
      amountKopecks: 10000,
    });
  });

  it('fails a refund the provider refuses, its ledger posting reversed: the balance is back', async () => {
    const id = await paidLink();
    const before = await available();
    provider.refunds = 'refuse';
    const res = await refund(id, '100.00');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'failed', failure_reason: 'Refund amount exceeds the payment', gateway_refund_id: null });
    expect(await available()).toBe(before);
    expect(await sys.sql('SELECT type FROM links.ledger_transactions WHERE refund_id = $1 ORDER BY created_at', [res.body.id])).toEqual([
      { type: 'refund' },
      { type: 'refund_failed' },
    ]);
  });

  it('leaves a refund whose provider did not answer pending, with no provider id, for status sync', async () => {
    const id = await paidLink();
    provider.refunds = 'down';
    const res = await refund(id, '100.00');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', gateway_refund_id: null });
  });
});
