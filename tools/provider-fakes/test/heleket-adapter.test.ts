import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { heleketProvider, ProviderRefusedError, ProviderUnavailableError, type CreatePaymentRequest, type HeleketProvider } from '@pl/providers';
import { HeleketFake, signedCallbackBody } from '../src/heleket';

const KEYS = { merchantId: '3fa85f64-5717-4562-b3fc-2c963f66afa6', paymentKey: 'fake-payment-key-1', payoutKey: 'fake-payout-key-2' };
const CTX = { timeoutMs: 5000 };
const LINK_ID = '8d5b6c1e-3f4a-4b2c-9d7e-1a2b3c4d5e6f';
const T0 = Date.parse('2026-11-27T12:00:00Z');

let fake: HeleketFake;
let receiver: Server;
let receiverUrl: string;
let clock: number;
let adapter: HeleketProvider;

function makeAdapter(overrides: Partial<Parameters<typeof heleketProvider>[0]> = {}): HeleketProvider {
  return heleketProvider({ apiUrl: fake.url, ...KEYS, publicBaseUrl: receiverUrl, callbackIps: ['127.0.0.1'], now: () => clock, ...overrides });
}

function request(overrides: Partial<CreatePaymentRequest> = {}): CreatePaymentRequest {
  return {
    orderId: `${LINK_ID}-${fake.invoices.size + 1}`,
    linkId: LINK_ID,
    method: 'crypto',
    network: 'USDT-TRC20',
    payerAmountKopecks: 125919,
    description: null,
    merchantOrderId: null,
    expiresAt: new Date(T0 + 3600_000),
    returnUrl: 'https://shop.example.com/thanks?o=42',
    ...overrides,
  };
}

beforeAll(async () => {
  fake = await HeleketFake.start(KEYS);
  // The platform's callback route, reduced to the adapter's verdict: what the gateway will answer Heleket.
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const verdict = adapter.verifyCallback({
        rawBody: Buffer.concat(chunks),
        header: (name) => req.headers[name.toLowerCase()] as string | undefined,
        remoteAddress: req.socket.remoteAddress ?? '',
      });
      res.writeHead(verdict.reply.status, { 'content-type': verdict.reply.contentType }).end(verdict.reply.body);
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await fake?.stop();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
});

beforeEach(() => {
  clock = T0;
  adapter = makeAdapter();
  fake.callbackPolicy = { mode: 'send', delayMs: 0, repeat: 1 };
  fake.clearFaults();
});

describe('Heleket adapter against the fake, over HTTP', () => {
  it('creates an invoice with the documented fields, signed over the exact bytes sent, and maps the answer', async () => {
    const before = fake.received.length;
    const payment = await adapter.createPayment(request(), CTX);
    const sent = fake.received[before]!;
    expect(sent.path).toBe('/v1/payment');
    expect(sent.headers.merchant).toBe(KEYS.merchantId);
    expect(sent.headers.traceparent).toBeUndefined();
    expect(sent.body).toContain('"url_callback":"http:\\/\\/127.0.0.1:');
    expect(JSON.parse(sent.body)).toEqual({
      amount: '1259.19',
      currency: 'RUB',
      order_id: `${LINK_ID}-1`,
      to_currency: 'USDT',
      network: 'tron',
      url_callback: `${receiverUrl}/callbacks/v1/heleket`,
      url_return: 'https://shop.example.com/thanks?o=42',
      url_success: 'https://shop.example.com/thanks?o=42',
      lifetime: 3600,
      is_payment_multiple: true,
      additional_data: LINK_ID,
    });
    const inv = fake.invoiceByOrder(`${LINK_ID}-1`)!;
    expect(payment).toEqual({
      gatewayPaymentId: inv.uuid,
      depositAddress: inv.address,
      qr: inv.address,
      toCurrency: 'USDT',
      payerCurrency: 'USDT',
      payerCryptoAmount: '13.991000',
      network: 'USDT-TRC20',
    });
  });

  it.each([
    ['BTC-BTC', 'BTC', 'btc'],
    ['ETH-ETH', 'ETH', 'eth'],
    ['USDT-ERC20', 'USDT', 'eth'],
    ['USDT-TON', 'USDT', 'ton'],
    ['TON-TON', 'TON', 'ton'],
  ] as const)('asks %s as %s on %s', async (network, coin, chain) => {
    const payment = await adapter.createPayment(request({ network, payerAmountKopecks: 5_000_000 }), CTX);
    const inv = fake.invoices.get(payment.gatewayPaymentId)!;
    expect([inv.payerCurrency, inv.network, payment.network]).toEqual([coin, chain, network]);
  });

  it('clamps the lifetime to 300..43200 seconds and leaves out a missing return URL', async () => {
    const before = fake.received.length;
    await adapter.createPayment(request({ expiresAt: new Date(T0 + 10_000), returnUrl: null }), CTX);
    await adapter.createPayment(request({ expiresAt: new Date(T0 + 3 * 86_400_000) }), CTX);
    const [short, long] = fake.received.slice(before).map((r) => JSON.parse(r.body));
    expect(short.lifetime).toBe(300);
    expect(short).not.toHaveProperty('url_return');
    expect(short).not.toHaveProperty('url_success');
    expect(long.lifetime).toBe(43200);
  });

  it('gets the same invoice back for the same order id (Heleket answers the existing one)', async () => {
    const req = request();
    const first = await adapter.createPayment(req, CTX);
    const again = await adapter.createPayment(req, CTX);
    expect(again.gatewayPaymentId).toBe(first.gatewayPaymentId);
  });

  it('reads a refusal with state 1 as ProviderRefusedError with the provider message', async () => {
    const refusal = adapter.createPayment(request({ payerAmountKopecks: 100 }), CTX);
    await expect(refusal).rejects.toBeInstanceOf(ProviderRefusedError);
    await expect(refusal).rejects.toMatchObject({ providerMessage: 'Minimum amount 1.00000000 USDT', httpStatus: 200 });
  });

  it('reads a 422 as ProviderRefusedError naming the fields', async () => {
    const refusal = adapter.createPayment(request({ returnUrl: 'mailto:me' }), CTX);
    await expect(refusal).rejects.toMatchObject({
      name: 'ProviderRefusedError',
      httpStatus: 422,
      providerMessage: 'url_return: validation.url; url_success: validation.url',
    });
  });

  it('does not offer a network Heleket reports unavailable: the create is refused', async () => {
    const saved = fake.services;
    fake.services = saved.map((s) => (s.currency === 'TON' && s.network === 'ton' ? { ...s, is_available: false } : s));
    try {
      await expect(adapter.createPayment(request({ network: 'TON-TON' }), CTX)).rejects.toMatchObject({
        providerMessage: 'The payment method is not available',
      });
    } finally {
      fake.services = saved;
    }
  });

  it('reads a wrong key as unavailable (a configuration fault for the circuit and the alerts), not as a refusal', async () => {
    const wrong = makeAdapter({ paymentKey: 'not-the-key' });
    await expect(wrong.createPayment(request(), CTX)).rejects.toMatchObject({ name: 'ProviderUnavailableError', why: 'bad_answer' });
  });

  it.each([
    [500, 'http_5xx'],
    [502, 'http_5xx'],
    [429, 'rate_limited'],
  ])('reads an answer %i as unavailable (%s)', async (status, why) => {
    fake.fault('/v1/payment', { kind: 'status', status });
    await expect(adapter.createPayment(request(), CTX)).rejects.toMatchObject({ name: 'ProviderUnavailableError', why });
  });

  it('gives up on a hanging Heleket at the deadline, and at once on an abort', async () => {
    fake.fault('/v1/payment', { kind: 'hang' });
    await expect(adapter.createPayment(request(), { timeoutMs: 200 })).rejects.toMatchObject({ why: 'timeout' });
    fake.fault('/v1/payment', { kind: 'hang' });
    const abort = new AbortController();
    const reached = fake.count('/v1/payment') + 1;
    const call = adapter.createPayment(request(), { timeoutMs: 60_000, signal: abort.signal });
    await fake.requestsReach('/v1/payment', reached);
    abort.abort();
    await expect(call).rejects.toMatchObject({ why: 'aborted' });
  });

  it('reads every payment status from payment/info, with the value of what arrived', async () => {
    const payment = await adapter.createPayment(request(), CTX);
    const uuid = payment.gatewayPaymentId;
    const ref = { gatewayPaymentId: uuid, orderId: `${LINK_ID}-x` };
    expect(await adapter.getPayment(ref, CTX)).toMatchObject({ status: 'unpaid', providerStatus: 'check', arrivedKopecks: null });
    fake.payPart(uuid, '6.995500');
    expect(await adapter.getPayment(ref, CTX)).toMatchObject({
      status: 'partially_paid',
      arrivedCryptoAmount: '6.995500',
      remainingCryptoAmount: '6.995500',
      arrivedKopecks: 62959,
    });
    // 1259.19 x 6.9955 / 13.991 = 629.595 RUB above, rounded down; 1259.19 x 15.000111 / 13.991 = 1350.00999 here.
    fake.overpay(uuid, '15.000111');
    expect(await adapter.getPayment(ref, CTX)).toMatchObject({ status: 'paid_over', arrivedKopecks: 135000 });
    for (const [word, status] of [
      ['process', 'confirming'],
      ['confirm_check', 'confirming'],
      ['paid', 'paid'],
      ['wrong_amount', 'underpaid'],
      ['cancel', 'ended_unpaid'],
      ['fail', 'failed'],
      ['system_fail', 'failed'],
      ['locked', 'locked'],
    ] as const) {
      fake.setStatus(uuid, word);
      expect(await adapter.getPayment(ref, CTX)).toMatchObject({ status, providerStatus: word, gatewayPaymentId: uuid });
    }
  });

  it('answers null for an invoice Heleket does not know', async () => {
    expect(await adapter.getPayment({ gatewayPaymentId: '00000000-0000-4000-8000-000000000000', orderId: 'x' }, CTX)).toBeNull();
  });

  it('cancels nothing: Heleket has no cancel call, the invoice ends at its lifetime', async () => {
    const before = fake.received.length;
    await adapter.cancelPayment({ gatewayPaymentId: 'u', orderId: 'o' }, CTX);
    expect(fake.received.length).toBe(before);
  });
});

describe('Heleket refunds against the fake', () => {
  async function paidInvoice(): Promise<string> {
    const payment = await adapter.createPayment(request(), CTX);
    fake.pay(payment.gatewayPaymentId);
    return payment.gatewayPaymentId;
  }

  const refund = (uuid: string, over: Record<string, unknown> = {}) => ({
    refundId: 'r-1',
    orderId: `${LINK_ID}-1`,
    gatewayPaymentId: uuid,
    amountKopecks: 125919,
    whole: true,
    destination: 'THgEWubVc8tPKXLJ4VZ5zbiiAK7AgqSeGH',
    description: null,
    firstCall: true,
    ...over,
  });

  it('refunds a whole payment with the payout key, no amount sent, and reads its end', async () => {
    const uuid = await paidInvoice();
    const state = await adapter.createRefund(refund(uuid), CTX);
    expect(state).toEqual({ provider: 'heleket', refundId: null, gatewayRefundId: uuid, status: 'pending', providerStatus: 'refund_process' });
    expect(fake.refunds.at(-1)).toEqual({ uuid, address: 'THgEWubVc8tPKXLJ4VZ5zbiiAK7AgqSeGH', amount: null, isSubtract: true });
    fake.setStatus(uuid, 'refund_paid');
    expect(await adapter.getRefund({ refundId: 'r-1', gatewayRefundId: uuid, gatewayPaymentId: uuid, orderId: 'o' }, CTX)).toMatchObject({
      status: 'succeeded',
      providerStatus: 'refund_paid',
    });
  });

  it('refunds part of a payment in RUB with two decimals, and a second part after the first is done', async () => {
    const uuid = await paidInvoice();
    await adapter.createRefund(refund(uuid, { whole: false, amountKopecks: 10050 }), CTX);
    expect(fake.refunds.at(-1)?.amount).toBe('100.50');
    fake.setStatus(uuid, 'refund_paid');
    const before = fake.count('/v1/payment/refund');
    expect(await adapter.createRefund(refund(uuid, { refundId: 'r-2', whole: false, amountKopecks: 20000 }), CTX)).toMatchObject({
      status: 'pending',
    });
    expect(fake.count('/v1/payment/refund')).toBe(before + 1);
    expect(fake.refunds.at(-1)?.amount).toBe('200.00');
  });

  it.each([
    ['an error answer', { kind: 'apply-then-status', status: 502 } as const],
    ['no answer, the call abandoned', { kind: 'apply-then-hang' } as const],
  ])('never repeats blind a refund whose outcome was unknown (%s): the retry reads the payment and sends nothing', async (_what, fault) => {
    const uuid = await paidInvoice();
    const before = fake.count('/v1/payment/refund');
    fake.fault('/v1/payment/refund', fault);
    const abort = new AbortController();
    const first = adapter.createRefund(refund(uuid), { timeoutMs: 60_000, signal: abort.signal });
    // Heleket has done the refund by the time its request is counted; then the answer is lost.
    await fake.requestsReach('/v1/payment/refund', before + 1);
    abort.abort();
    await expect(first).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(fake.count('/v1/payment/refund')).toBe(before + 1);
    const retry = await adapter.createRefund(refund(uuid, { firstCall: false }), CTX);
    expect(retry).toMatchObject({ status: 'pending', providerStatus: 'refund_process' });
    expect(fake.count('/v1/payment/refund')).toBe(before + 1);
    expect(fake.refunds.filter((r) => r.uuid === uuid)).toHaveLength(1);
  });

  it('sends a repeat whose first call never reached Heleket (no refund shows on the payment)', async () => {
    const uuid = await paidInvoice();
    fake.fault('/v1/payment/refund', { kind: 'status', status: 503 });
    await expect(adapter.createRefund(refund(uuid), CTX)).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(await adapter.createRefund(refund(uuid, { firstCall: false }), CTX)).toMatchObject({ status: 'pending' });
    expect(fake.refunds.filter((r) => r.uuid === uuid)).toHaveLength(1);
  });

  it('refuses a new refund while another one of the payment is in progress, sending nothing', async () => {
    const uuid = await paidInvoice();
    await adapter.createRefund(refund(uuid, { whole: false, amountKopecks: 100 }), CTX);
    const before = fake.count('/v1/payment/refund');
    await expect(adapter.createRefund(refund(uuid, { refundId: 'r-2' }), CTX)).rejects.toMatchObject({
      name: 'ProviderRefusedError',
      httpStatus: 409,
    });
    expect(fake.count('/v1/payment/refund')).toBe(before);
  });

  it('refuses a crypto refund without a destination, and one for an unknown payment', async () => {
    await expect(adapter.createRefund(refund('u', { destination: null }), CTX)).rejects.toBeInstanceOf(ProviderRefusedError);
    await expect(adapter.createRefund(refund('00000000-0000-4000-8000-000000000000'), CTX)).rejects.toMatchObject({ httpStatus: 404 });
  });
});

describe('the services list', () => {
  it('reads the platform networks with their limits once per 10 minutes, and does not keep a failure', async () => {
    const before = fake.count('/v1/payment/services');
    const first = await adapter.networkServices(CTX);
    expect(first).toHaveLength(6);
    expect(first.find((s) => s.network === 'BTC-BTC')).toEqual({
      network: 'BTC-BTC',
      available: true,
      enabled: true,
      minAmount: '0.00010000',
      maxAmount: '100.00000000',
    });
    clock += 9 * 60_000;
    await adapter.networkServices(CTX);
    expect(fake.count('/v1/payment/services')).toBe(before + 1);
    clock += 60_000;
    fake.fault('/v1/payment/services', { kind: 'status', status: 500 });
    await expect(adapter.networkServices(CTX)).rejects.toBeInstanceOf(ProviderUnavailableError);
    await adapter.networkServices(CTX);
    expect(fake.count('/v1/payment/services')).toBe(before + 3);
    // The body-less call is signed over the empty string, which the fake checked.
    expect(fake.received.at(-1)?.body).toBe('');
  });

  it('offers the networks Heleket can take now and the profile has on, with their limits; takes no SBP', async () => {
    const fresh = makeAdapter();
    const saved = fake.services;
    fake.services = saved.map((s) =>
      s.currency === 'TON' && s.network === 'ton' ? { ...s, is_available: false } : s.currency === 'BTC' ? { ...s, is_enabled: false } : s,
    );
    try {
      const methods = await fresh.availableMethods(CTX);
      expect(methods.sbp).toBe(false);
      expect(methods.networks.map((n) => n.network).sort()).toEqual(['ETH-ETH', 'USDT-ERC20', 'USDT-TON', 'USDT-TRC20']);
      expect(methods.networks.find((n) => n.network === 'USDT-TRC20')).toEqual({
        network: 'USDT-TRC20',
        minAmount: expect.any(String),
        maxAmount: expect.any(String),
      });
    } finally {
      fake.services = saved;
    }
  });

  it('answers from the last list read while Heleket is down, tries again a minute later, and with no list known fails', async () => {
    const fresh = makeAdapter();
    fake.fault('/v1/payment/services', { kind: 'status', status: 500 });
    await expect(fresh.availableMethods(CTX)).rejects.toBeInstanceOf(ProviderUnavailableError);
    const known = await fresh.availableMethods(CTX);
    expect(known.networks).toHaveLength(6);
    clock += 10 * 60_000;
    const before = fake.count('/v1/payment/services');
    fake.fault('/v1/payment/services', { kind: 'status', status: 503 });
    await expect(fresh.availableMethods(CTX)).resolves.toEqual(known);
    await expect(fresh.availableMethods(CTX)).resolves.toEqual(known);
    expect(fake.count('/v1/payment/services')).toBe(before + 1);
    clock += 60_000;
    await fresh.availableMethods(CTX);
    expect(fake.count('/v1/payment/services')).toBe(before + 2);
  });

  it('shares one request between callers that ask at once', async () => {
    const fresh = makeAdapter();
    const before = fake.count('/v1/payment/services');
    await Promise.all([fresh.networkServices(CTX), fresh.networkServices(CTX), fresh.networkServices(CTX)]);
    expect(fake.count('/v1/payment/services')).toBe(before + 1);
  });
});

describe("the fake's callbacks, verified by the adapter", () => {
  it('sends a signed callback on each change, which the adapter verifies (200)', async () => {
    const payment = await adapter.createPayment(request(), CTX);
    const n = fake.deliveries.length;
    fake.confirmCheck(payment.gatewayPaymentId);
    fake.pay(payment.gatewayPaymentId);
    const delivered = (await fake.deliveriesReach(n + 2)).slice(n);
    expect(delivered.map((d) => [d.status, d.answer])).toEqual([
      ['confirm_check', 200],
      ['paid', 200],
    ]);
  });

  it('repeats, holds and reorders callbacks as told, and drops them', async () => {
    const payment = await adapter.createPayment(request(), CTX);
    const n = fake.deliveries.length;
    fake.callbackPolicy = { mode: 'send', delayMs: 0, repeat: 2 };
    fake.confirmCheck(payment.gatewayPaymentId);
    await fake.deliveriesReach(n + 2);
    fake.callbackPolicy = { mode: 'hold', delayMs: 0, repeat: 1 };
    fake.payPart(payment.gatewayPaymentId, '1.000000');
    fake.pay(payment.gatewayPaymentId);
    await fake.releaseCallbacks({ reverse: true });
    fake.callbackPolicy = { mode: 'drop', delayMs: 0, repeat: 1 };
    fake.setStatus(payment.gatewayPaymentId, 'refund_process');
    const delivered = (await fake.deliveriesReach(n + 4)).slice(n);
    expect(delivered.map((d) => [d.status, d.answer])).toEqual([
      ['confirm_check', 200],
      ['confirm_check', 200],
      ['paid', 200],
      ['wrong_amount_waiting', 200],
    ]);
    expect(fake.deliveries).toHaveLength(n + 4);
  });

  it('agrees with the adapter on slashes and non-ASCII: the fake encodes apart, the adapter re-encodes as PHP', () => {
    const body = signedCallbackBody(
      {
        type: 'payment',
        uuid: 'u-1',
        order_id: 'o-1',
        amount: '10.00',
        status: 'paid',
        additional_data: 'Заказ №5 / https://x.example/a',
        is_final: true,
      },
      KEYS.paymentKey,
    );
    expect(body).toContain('"additional_data":"Заказ №5 \\/ https:\\/\\/x.example\\/a"');
    const verdict = adapter.verifyCallback({ rawBody: Buffer.from(body), header: () => undefined, remoteAddress: '127.0.0.1' });
    expect(verdict).toMatchObject({ ok: true, event: { kind: 'payment', state: { status: 'paid', gatewayPaymentId: 'u-1' } } });
  });

  it('is refused by the adapter when it comes from an address outside the allowlist', async () => {
    adapter = makeAdapter({ callbackIps: ['31.133.220.8'] });
    const payment = await adapter.createPayment(request(), CTX);
    const n = fake.deliveries.length;
    fake.pay(payment.gatewayPaymentId);
    const [delivery] = (await fake.deliveriesReach(n + 1)).slice(n);
    expect(delivery?.answer).toBe(401);
  });
});
