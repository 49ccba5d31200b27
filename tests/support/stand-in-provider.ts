import { createHmac, timingSafeEqual } from 'node:crypto';
import { CRYPTO_NETWORKS } from '@pl/contracts';
import {
  errorReply,
  ProviderRefusedError,
  ProviderUnavailableError,
  type AvailableMethods,
  type CallbackRequest,
  type CallbackVerdict,
  type CreatePaymentRequest,
  type CreateRefundRequest,
  type PaymentProvider,
  type PaymentState,
  type PaymentStatus,
  type ProviderName,
  type ProviderPayment,
  type RefundState,
} from '@pl/providers';
import { unauthorized, invalidJson } from '@pl/errors';

/**
 * How the stand-in answers its next calls. `held`: a create made now answers (as `up`) only once `until` resolves, so a
 * test can move the link while the provider is still making the payment.
 */
export type StandInMode = { kind: 'up' } | { kind: 'down' } | { kind: 'refusing'; message: string } | { kind: 'held'; until: Promise<void> };

/** The body the stand-in's callbacks carry: the attempt's order id, its payment id and a status. */
export interface StandInCallback {
  order_id: string;
  gateway_payment_id: string;
  status: PaymentStatus;
  /** For `partially_paid`: the coin amount still to send. */
  remaining_crypto_amount?: string;
}

const SIGNATURE_HEADER = 'x-stand-in-signature';

/**
 * A payment provider for tests, wired into the real services in place of a live one: it implements the interface
 * as a real adapter does (a payment id of its own per attempt, `sip_<order id>`; a refusal, an outage), answers at
 * once, and records every call. Its callbacks are HMAC-signed JSON of {@link StandInCallback}.
 */
export class StandInProvider implements PaymentProvider {
  mode: StandInMode = { kind: 'up' };
  /** How the next refunds end at once: pending (the usual), or refused by the provider. */
  refunds: 'accept' | 'refuse' | 'down' = 'accept';
  readonly creates: CreatePaymentRequest[] = [];
  readonly cancels: string[] = [];
  readonly refundCalls: CreateRefundRequest[] = [];
  /** What {@link availableMethods} answers: every method unless a test says otherwise; null when it cannot tell (down). */
  methods: AvailableMethods | null = { sbp: true, networks: CRYPTO_NETWORKS.map((network) => ({ network, minAmount: null, maxAmount: null })) };

  constructor(
    readonly name: ProviderName,
    private readonly secret: string,
  ) {}

  static paymentIdOf(orderId: string): string {
    return `sip_${orderId}`;
  }

  createPayment(request: CreatePaymentRequest): Promise<ProviderPayment> {
    this.creates.push(request);
    if (this.mode.kind === 'down') return Promise.reject(new ProviderUnavailableError(this.name, 'create_payment', 'http_5xx'));
    if (this.mode.kind === 'refusing') return Promise.reject(new ProviderRefusedError(this.name, 'create_payment', this.mode.message, 422));
    const id = StandInProvider.paymentIdOf(request.orderId);
    const payment: ProviderPayment = {
      gatewayPaymentId: id,
      depositAddress: `https://qr.example.test/${id}`,
      qr: `https://qr.example.test/${id}`,
      toCurrency: 'RUB',
      payerCurrency: 'RUB',
      payerCryptoAmount: null,
      network: request.method === 'sbp' ? 'SBP' : (request.network ?? 'SBP'),
    };
    return this.mode.kind === 'held' ? this.mode.until.then(() => payment) : Promise.resolve(payment);
  }

  getPayment(ref: { gatewayPaymentId: string; orderId: string }): Promise<PaymentState | null> {
    return Promise.resolve(this.state(ref.gatewayPaymentId, ref.orderId, 'unpaid'));
  }

  cancelPayment(ref: { gatewayPaymentId: string }): Promise<void> {
    this.cancels.push(ref.gatewayPaymentId);
    for (const waiter of this.cancelWaiters) waiter();
    return Promise.resolve();
  }

  private readonly cancelWaiters = new Set<() => void>();

  /** Resolves once the platform asked to cancel the payment `gatewayPaymentId` (it does so without waiting). */
  canceled(gatewayPaymentId: string): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (!this.cancels.includes(gatewayPaymentId)) return;
        this.cancelWaiters.delete(check);
        resolve();
      };
      this.cancelWaiters.add(check);
      check();
    });
  }

  createRefund(request: CreateRefundRequest): Promise<RefundState> {
    this.refundCalls.push(request);
    if (this.refunds === 'down') return Promise.reject(new ProviderUnavailableError(this.name, 'create_refund', 'timeout'));
    if (this.refunds === 'refuse')
      return Promise.reject(new ProviderRefusedError(this.name, 'create_refund', 'Refund amount exceeds the payment', 422));
    return Promise.resolve({
      provider: this.name,
      refundId: request.refundId,
      gatewayRefundId: `sir_${request.refundId}`,
      status: 'pending',
      providerStatus: 'IN_PROGRESS',
    });
  }

  getRefund(): Promise<RefundState | null> {
    return Promise.resolve(null);
  }

  /** The signed body of a callback, as the provider would send it. */
  callback(body: StandInCallback): { body: string; headers: Record<string, string> } {
    const raw = JSON.stringify(body);
    return {
      body: raw,
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: createHmac('sha256', this.secret).update(raw).digest('hex') },
    };
  }

  availableMethods(): Promise<AvailableMethods> {
    return this.methods === null
      ? Promise.reject(new ProviderUnavailableError(this.name, 'available_methods', 'http_5xx'))
      : Promise.resolve(this.methods);
  }

  verifyCallback(request: CallbackRequest): CallbackVerdict {
    const expected = createHmac('sha256', this.secret).update(request.rawBody).digest();
    const given = Buffer.from(request.header(SIGNATURE_HEADER) ?? '', 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { ok: false, reason: 'signature', reply: errorReply(unauthorized('Missing or invalid provider signature')) };
    }
    let body: StandInCallback;
    try {
      body = JSON.parse(request.rawBody.toString('utf8')) as StandInCallback;
    } catch {
      return { ok: false, reason: 'malformed', reply: errorReply(invalidJson()) };
    }
    return {
      ok: true,
      event: {
        kind: 'payment',
        state: { ...this.state(body.gateway_payment_id, body.order_id, body.status), remainingCryptoAmount: body.remaining_crypto_amount ?? null },
      },
      reply: { status: 200, contentType: 'application/json; charset=utf-8', body: '{"received":true}' },
    };
  }

  private state(gatewayPaymentId: string, orderId: string, status: PaymentStatus): PaymentState {
    return {
      provider: this.name,
      gatewayPaymentId,
      orderId,
      status,
      providerStatus: status,
      arrivedKopecks: null,
      arrivedCryptoAmount: null,
      remainingCryptoAmount: null,
      refund: null,
    };
  }
}
