import { randomUUID } from 'node:crypto';
import {
  judgeArrivedAmount,
  ProviderRefusedError,
  ProviderUnavailableError,
  raiffeisenSbpProvider,
  withCircuitBreaker,
  type CreatePaymentRequest,
  type PaymentProvider,
} from '@pl/providers';
import { RaiffeisenSbpFake } from '../src';
import { CallbackReceiver } from './callback-receiver';

/** The Raiffeisen SBP adapter against the local fake of the bank, over real HTTP. */

const SECRET = 'raif-test-secret-key-0123456789';
const MERCHANT = 'MA0000000552';
const CTX = { timeoutMs: 5000 };

let fake: RaiffeisenSbpFake;
let receiver: CallbackReceiver;
let provider: PaymentProvider;

const adapter = (over: Partial<Parameters<typeof raiffeisenSbpProvider>[0]> = {}) =>
  raiffeisenSbpProvider({ apiUrl: fake.apiUrl, sbpMerchantId: MERCHANT, secretKey: SECRET, callbackIps: ['127.0.0.1'], ...over });

const attempt = (over: Partial<CreatePaymentRequest> = {}): CreatePaymentRequest => {
  const linkId = randomUUID();
  return {
    orderId: `${linkId}-1`,
    linkId,
    method: 'sbp',
    network: null,
    payerAmountKopecks: 125919,
    description: 'Two coffees',
    merchantOrderId: 'order-42',
    expiresAt: new Date(Date.now() + 60 * 60 * 1000),
    returnUrl: null,
    ...over,
  };
};

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

beforeAll(async () => {
  receiver = new CallbackReceiver(() => provider);
  const callbackUrl = await receiver.start();
  fake = new RaiffeisenSbpFake({ secretKey: SECRET, sbpMerchantId: MERCHANT, callbackUrl });
  await fake.start();
});

afterAll(async () => {
  await fake?.stop();
  await receiver?.stop();
});

beforeEach(() => {
  fake.reset();
  provider = adapter();
});

describe('create', () => {
  it('registers a dynamic QR for the attempt and maps qrId and payload onto the link', async () => {
    const request = attempt();
    const payment = await provider.createPayment(request, CTX);
    const qr = fake.qrOf(request.orderId)!;
    expect(payment).toEqual({
      gatewayPaymentId: qr.qrId,
      depositAddress: expect.stringMatching(/^https:\/\/qr\.nspk\.ru\//),
      qr: payment.depositAddress,
      toCurrency: 'RUB',
      payerCurrency: 'RUB',
      payerCryptoAmount: null,
      network: 'SBP',
    });
    expect(qr).toMatchObject({ amountKopecks: 125919, amountText: '1259.19', paymentDetails: 'Two coffees', status: 'NEW' });
    expect(qr.qrExpirationDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/);
    const [register] = fake.requests;
    expect(register?.headers.authorization).toBeUndefined();
    expect(JSON.parse(register!.body)).toMatchObject({
      qrType: 'QRDynamic',
      order: request.orderId,
      sbpMerchantId: MERCHANT,
      amount: 1259.19,
      currency: 'RUB',
    });
  });

  it("is refused with the bank's message when the bank refuses the fields", async () => {
    const expired = await rejection(provider.createPayment(attempt({ expiresAt: new Date(Date.now() - 1000) }), CTX));
    expect(expired).toBeInstanceOf(ProviderRefusedError);
    expect(expired).toMatchObject({ operation: 'create_payment', httpStatus: 400, providerMessage: 'Неверная дата истечения QR-кода' });
    const badOrder = await rejection(provider.createPayment(attempt({ orderId: 'order #1' }), CTX));
    expect(badOrder).toMatchObject({ providerMessage: 'В номере заказа поддерживаются A-z09_-.' });
    const otherMerchant = await rejection(adapter({ sbpMerchantId: 'MA0000000999' }).createPayment(attempt(), CTX));
    expect(otherMerchant).toMatchObject({ providerMessage: 'Партнер с ID MA0000000999 не зарегистрирован' });
    expect(fake.book.qrs.size).toBe(0);
  });
});

describe('payment state', () => {
  it('reads nothing while the QR is unpaid (404), then the payment once a buyer paid', async () => {
    const request = attempt();
    const { gatewayPaymentId } = await provider.createPayment(request, CTX);
    const ref = { gatewayPaymentId, orderId: request.orderId };
    await expect(provider.getPayment(ref, CTX)).resolves.toBeNull();

    fake.callbackMode = 'drop';
    await fake.pay(gatewayPaymentId);
    await expect(provider.getPayment(ref, CTX)).resolves.toMatchObject({
      provider: 'raiffeisen_sbp',
      gatewayPaymentId,
      orderId: request.orderId,
      status: 'paid',
      providerStatus: 'SUCCESS',
      arrivedKopecks: 125919,
    });
    const read = fake.requests.find((r) => r.kind === 'payment_info');
    expect(read?.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('reads NO_INFO as unpaid when the bank answers that way', async () => {
    const noInfo = new RaiffeisenSbpFake({ secretKey: SECRET, sbpMerchantId: MERCHANT, unpaidPaymentInfo: 'no_info' });
    await noInfo.start();
    try {
      const p = adapter({ apiUrl: noInfo.apiUrl });
      const request = attempt();
      const { gatewayPaymentId } = await p.createPayment(request, CTX);
      await expect(p.getPayment({ gatewayPaymentId, orderId: request.orderId }, CTX)).resolves.toMatchObject({
        status: 'unpaid',
        providerStatus: 'NO_INFO',
        arrivedKopecks: null,
      });
    } finally {
      await noInfo.stop();
    }
  });

  it('receives a signed SUCCESS callback, verifies it and reads the amount as the bank wrote it (100.50)', async () => {
    const request = attempt({ payerAmountKopecks: 10050 });
    const { gatewayPaymentId } = await provider.createPayment(request, CTX);
    const [delivery] = await fake.pay(gatewayPaymentId, { amountText: '100.50' });
    expect(delivery?.status).toBe(200);
    expect(delivery?.body).toContain('"amount":100.50,');
    const [verdict] = receiver.verdicts.slice(-1);
    expect(verdict).toMatchObject({
      ok: true,
      event: { kind: 'payment', state: { gatewayPaymentId, orderId: request.orderId, status: 'paid', arrivedKopecks: 10050 } },
    });
  });

  it('judges a SUCCESS for less as underpaid and for more as paid_over, by callback and by read alike', async () => {
    const under = attempt();
    const underQr = (await provider.createPayment(under, CTX)).gatewayPaymentId;
    await fake.underpay(underQr, 1);
    const over = attempt();
    const overQr = (await provider.createPayment(over, CTX)).gatewayPaymentId;
    await fake.overpay(overQr, 5000);

    const states = receiver.verdicts.slice(-2).map((v) => (v.ok && v.event.kind === 'payment' ? judgeArrivedAmount(v.event.state, 125919) : null));
    expect(states).toMatchObject([
      { gatewayPaymentId: underQr, status: 'underpaid', arrivedKopecks: 125918 },
      { gatewayPaymentId: overQr, status: 'paid_over', arrivedKopecks: 130919 },
    ]);
    const read = await provider.getPayment({ gatewayPaymentId: underQr, orderId: under.orderId }, CTX);
    expect(judgeArrivedAmount(read!, 125919)).toMatchObject({ status: 'underpaid', arrivedKopecks: 125918 });
  });

  it('reads a DECLINED payment as a declined attempt', async () => {
    const request = attempt();
    const { gatewayPaymentId } = await provider.createPayment(request, CTX);
    const [delivery] = await fake.decline(gatewayPaymentId);
    expect(delivery?.status).toBe(200);
    expect(receiver.verdicts.at(-1)).toMatchObject({ ok: true, event: { state: { status: 'declined', providerStatus: 'DECLINED' } } });
    await expect(provider.getPayment({ gatewayPaymentId, orderId: request.orderId }, CTX)).resolves.toMatchObject({ status: 'declined' });
  });

  it('answers 401 to a callback signed with another key, and the fake sees it refused', async () => {
    const request = attempt();
    const { gatewayPaymentId } = await provider.createPayment(request, CTX);
    provider = adapter({ secretKey: 'another-secret-key' });
    const [delivery] = await fake.pay(gatewayPaymentId);
    expect(delivery?.status).toBe(401);
    expect(receiver.verdicts.at(-1)).toMatchObject({ ok: false, reason: 'signature' });
  });

  it('answers 401 to a callback from an address outside the allowlist', async () => {
    provider = adapter({ callbackIps: ['193.28.44.23'] });
    const request = attempt();
    const { gatewayPaymentId } = await provider.createPayment(request, CTX);
    const [delivery] = await fake.pay(gatewayPaymentId);
    expect(delivery?.status).toBe(401);
    expect(receiver.verdicts.at(-1)).toMatchObject({ ok: false, reason: 'address' });
  });
});

describe('cancel', () => {
  it('deletes an unpaid QR, so no buyer can pay it', async () => {
    const request = attempt();
    const { gatewayPaymentId } = await provider.createPayment(request, CTX);
    await provider.cancelPayment({ gatewayPaymentId, orderId: request.orderId }, CTX);
    expect(fake.book.qrs.get(gatewayPaymentId)?.status).toBe('CANCELLED');
    expect(() => fake.book.pay(gatewayPaymentId, 'SUCCESS', 1, '0.01')).toThrow('CANCELLED');
    const cancel = fake.requests.find((r) => r.kind === 'cancel');
    expect(cancel).toMatchObject({ method: 'DELETE', url: `/api/sbp/v2/qrs/${gatewayPaymentId}` });
    expect(cancel?.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('takes an unknown QR as nothing left to cancel, and is refused for a paid one', async () => {
    await expect(provider.cancelPayment({ gatewayPaymentId: 'AD0000', orderId: 'x-1' }, CTX)).resolves.toBeUndefined();
    const request = attempt();
    const { gatewayPaymentId } = await provider.createPayment(request, CTX);
    await fake.pay(gatewayPaymentId);
    await expect(provider.cancelPayment({ gatewayPaymentId, orderId: request.orderId }, CTX)).rejects.toBeInstanceOf(ProviderRefusedError);
  });
});

describe('refunds', () => {
  async function paidAttempt() {
    const request = attempt();
    const { gatewayPaymentId } = await provider.createPayment(request, CTX);
    fake.callbackMode = 'drop';
    await fake.pay(gatewayPaymentId);
    return { orderId: request.orderId, gatewayPaymentId };
  }
  const refund = (paid: { orderId: string; gatewayPaymentId: string }, amountKopecks: number, refundId = randomUUID()) => ({
    refundId,
    orderId: paid.orderId,
    gatewayPaymentId: paid.gatewayPaymentId,
    amountKopecks,
    whole: false,
    destination: null,
    description: 'One coffee returned',
  });

  it('creates a refund under our refund id and reads it until the bank completes it', async () => {
    const paid = await paidAttempt();
    const request = refund(paid, 50000);
    await expect(provider.createRefund(request, CTX)).resolves.toEqual({
      provider: 'raiffeisen_sbp',
      refundId: request.refundId,
      gatewayRefundId: request.refundId,
      status: 'pending',
      providerStatus: 'IN_PROGRESS',
    });
    expect(JSON.parse(fake.requests.find((r) => r.kind === 'refund')!.body)).toEqual({
      amount: 500,
      order: paid.orderId,
      refundId: request.refundId,
      paymentDetails: 'One coffee returned',
    });
    const ref = { refundId: request.refundId, gatewayRefundId: request.refundId, gatewayPaymentId: paid.gatewayPaymentId, orderId: paid.orderId };
    await expect(provider.getRefund(ref, CTX)).resolves.toMatchObject({ status: 'pending' });
    fake.settleRefund(request.refundId, 'COMPLETED');
    await expect(provider.getRefund(ref, CTX)).resolves.toMatchObject({ status: 'succeeded', providerStatus: 'COMPLETED' });
    fake.settleRefund(request.refundId, 'DECLINED');
    await expect(provider.getRefund(ref, CTX)).resolves.toMatchObject({ status: 'failed', providerStatus: 'DECLINED' });
    await expect(provider.getRefund({ ...ref, refundId: 'unknown' }, CTX)).resolves.toBeNull();
  });

  it('repeated after a lost answer, finds the refund the first request made instead of refunding twice', async () => {
    const paid = await paidAttempt();
    const request = refund(paid, 125919);
    fake.fail('refund', { type: 'status', status: 503, processed: true });
    await expect(provider.createRefund(request, CTX)).rejects.toMatchObject({ why: 'http_5xx' });
    await expect(provider.createRefund(request, CTX)).resolves.toMatchObject({ refundId: request.refundId, status: 'pending' });
    expect(fake.count('refund')).toBe(2);
    expect(fake.book.refunds.size).toBe(1);
  });

  it("is refused with the bank's message for more than is left of the payment", async () => {
    const paid = await paidAttempt();
    await provider.createRefund(refund(paid, 100000), CTX);
    const refused = await rejection(provider.createRefund(refund(paid, 25920), CTX));
    expect(refused).toBeInstanceOf(ProviderRefusedError);
    expect(refused).toMatchObject({ operation: 'create_refund', providerMessage: 'Сумма возврата больше суммы остатка по платежу' });
    expect(fake.book.refunds.size).toBe(1);
  });
});

describe('outages', () => {
  it('turns a hung request into ProviderUnavailableError(timeout) at the deadline, having sent it once', async () => {
    fake.fail('register', { type: 'hang' });
    const e = await rejection(provider.createPayment(attempt(), { timeoutMs: 300 }));
    expect(e).toBeInstanceOf(ProviderUnavailableError);
    expect(e).toMatchObject({ provider: 'raiffeisen_sbp', operation: 'create_payment', why: 'timeout' });
    expect(fake.count('register')).toBe(1);
  });

  it('reports a register whose answer was lost as unknown, not refused: the bank may hold the QR', async () => {
    const request = attempt();
    fake.fail('register', { type: 'hang', processed: true });
    await expect(provider.createPayment(request, { timeoutMs: 300 })).rejects.toMatchObject({ name: 'ProviderUnavailableError', why: 'timeout' });
    expect(fake.qrOf(request.orderId)?.status).toBe('NEW');
  });

  it("abandons a hung request when the caller's signal aborts", async () => {
    const request = attempt();
    const { gatewayPaymentId } = await provider.createPayment(request, CTX);
    fake.fail('payment_info', { type: 'hang' });
    const controller = new AbortController();
    const read = rejection(provider.getPayment({ gatewayPaymentId, orderId: request.orderId }, { timeoutMs: 30_000, signal: controller.signal }));
    await fake.ledger.arrived('payment_info');
    controller.abort();
    expect(await read).toMatchObject({ why: 'aborted' });
  });

  it.each([
    [{ type: 'status', status: 500 } as const, 'http_5xx'],
    [{ type: 'status', status: 502 } as const, 'http_5xx'],
    [{ type: 'status', status: 429 } as const, 'rate_limited'],
    [{ type: 'reset' } as const, 'network'],
  ])('turns %j into ProviderUnavailableError(%s)', async (fault, why) => {
    fake.fail('register', fault);
    await expect(provider.createPayment(attempt(), CTX)).rejects.toMatchObject({ name: 'ProviderUnavailableError', why });
  });

  it('refuses reads with a wrong key as the bank answers them (401), not as an outage', async () => {
    const request = attempt();
    const { gatewayPaymentId } = await provider.createPayment(request, CTX);
    const wrong = adapter({ secretKey: 'wrong-key' });
    await expect(wrong.getPayment({ gatewayPaymentId, orderId: request.orderId }, CTX)).rejects.toMatchObject({
      name: 'ProviderRefusedError',
      httpStatus: 401,
    });
  });

  it('opens the circuit after consecutive 5xx and stops calling the bank until the cool-down', async () => {
    const guarded = withCircuitBreaker(provider, { failures: 2, cooldownMs: 60_000 });
    fake.fail('register', { type: 'status', status: 503 }, 2);
    await expect(guarded.createPayment(attempt(), CTX)).rejects.toMatchObject({ why: 'http_5xx' });
    await expect(guarded.createPayment(attempt(), CTX)).rejects.toMatchObject({ why: 'http_5xx' });
    await expect(guarded.createPayment(attempt(), CTX)).rejects.toMatchObject({ why: 'circuit_open' });
    expect(fake.count('register')).toBe(2);
    expect(guarded.circuitState).toBe('open');
  });
});

describe('what leaves the platform', () => {
  it('sends no trace headers and no secret in any URL, and the Bearer key on every call but register', async () => {
    const request = attempt();
    const { gatewayPaymentId } = await provider.createPayment(request, CTX);
    const ref = { gatewayPaymentId, orderId: request.orderId };
    await provider.getPayment(ref, CTX);
    fake.callbackMode = 'drop';
    await fake.pay(gatewayPaymentId);
    await provider.createRefund(
      { refundId: randomUUID(), orderId: request.orderId, gatewayPaymentId, amountKopecks: 100, whole: false, destination: null, description: null },
      CTX,
    );
    await provider.cancelPayment(ref, CTX).catch(() => undefined);

    expect(new Set(fake.requests.map((r) => r.kind))).toEqual(new Set(['register', 'payment_info', 'refund', 'cancel']));
    for (const r of fake.requests) {
      expect(Object.keys(r.headers)).not.toEqual(expect.arrayContaining(['traceparent']));
      expect(r.headers.tracestate).toBeUndefined();
      expect(r.headers.baggage).toBeUndefined();
      expect(r.url).not.toContain(SECRET);
      expect(r.body).not.toContain(SECRET);
      expect(r.headers.authorization).toBe(r.kind === 'register' ? undefined : `Bearer ${SECRET}`);
    }
  });
});
