import { parseJsonPreservingNumbers } from '@pl/contracts';
import { providerFetch, type ProviderAnswer } from '../http';
import {
  ProviderRefusedError,
  ProviderUnavailableError,
  type AvailableMethods,
  type CallContext,
  type CreatePaymentRequest,
  type CreateRefundRequest,
  type PaymentProvider,
  type PaymentState,
  type ProviderPayment,
  type RefundRef,
  type RefundState,
} from '../provider';
import { senderAllowlist } from '../sender-allowlist';
import { memberText, paymentStateOf, verifyRaiffeisenCallback } from './callback';
import { refundBody, refundStatusOf, refusalMessage, registerQrBody } from './wire';

const SBP_ONLY: AvailableMethods = { sbp: true, networks: [] };

/** What the adapter needs, as plain values (the services read them from the environment, docs/product-decisions.md). */
export interface RaiffeisenSbpConfig {
  /** `RAIFFEISEN_SBP_API_URL`, e.g. `https://pay.raif.ru/api` (no trailing slash needed). */
  readonly apiUrl: string;
  /** `RAIFFEISEN_SBP_MERCHANT_ID`: the platform's `sbpMerchantId`. */
  readonly sbpMerchantId: string;
  /** `RAIFFEISEN_SECRET_KEY`: Bearer key of every call but register, and the key callbacks are signed with. */
  readonly secretKey: string;
  /** `RAIFFEISEN_CALLBACK_IPS`: addresses or CIDRs callbacks may come from; empty allows any. */
  readonly callbackIps: readonly string[];
}

const PROVIDER = 'raiffeisen_sbp';

type Operation = 'create_payment' | 'get_payment' | 'cancel_payment' | 'create_refund' | 'get_refund';

function bodyOf(answer: ProviderAnswer, operation: Operation): Record<string, unknown> {
  let body: unknown;
  try {
    body = parseJsonPreservingNumbers(answer.text);
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ProviderUnavailableError(PROVIDER, operation, 'bad_answer');
  return body as Record<string, unknown>;
}

/** The bank documents errors as `{ code: "ERROR.<NAME>", message }`; one can come with a 2xx too (verify). */
function refuseUnlessOk(answer: ProviderAnswer, operation: Operation): void {
  const code = (answer.json as { code?: unknown } | undefined)?.code;
  if (answer.status >= 400 || (typeof code === 'string' && code.startsWith('ERROR'))) {
    throw new ProviderRefusedError(PROVIDER, operation, refusalMessage(answer.json, answer.status), answer.status);
  }
}

function refundStateOf(body: Record<string, unknown>, refundId: string, operation: Operation): RefundState {
  const word = body.refundStatus;
  const status = typeof word === 'string' ? refundStatusOf(word) : undefined;
  if (status === undefined || typeof word !== 'string') throw new ProviderUnavailableError(PROVIDER, operation, 'bad_answer');
  return { provider: PROVIDER, refundId, gatewayRefundId: refundId, status, providerStatus: word };
}

/**
 * The Raiffeisen SBP QR API as a {@link PaymentProvider}: one dynamic QR per attempt, its payment read from
 * `payment-info`, refunds keyed by our refund id, and notifications verified over their raw bytes. The secret key
 * stays in this closure: no property of the returned object holds it, and it never enters a URL.
 */
export function raiffeisenSbpProvider(config: RaiffeisenSbpConfig): PaymentProvider {
  const base = config.apiUrl.replace(/\/+$/, '');
  const senderAllowed = senderAllowlist(config.callbackIps);
  const authorized = { Authorization: `Bearer ${config.secretKey}`, Accept: 'application/json' };
  const jsonHeaders = { 'Content-Type': 'application/json', Accept: 'application/json' };

  const call = (operation: Operation, method: 'GET' | 'POST' | 'DELETE', path: string, ctx: CallContext, body?: string, auth = true) =>
    providerFetch(
      PROVIDER,
      operation,
      { method, url: `${base}${path}`, headers: { ...(auth ? authorized : {}), ...(body ? jsonHeaders : {}) }, body },
      ctx,
    );

  async function readRefund(refundId: string, ctx: CallContext): Promise<RefundState | null> {
    const answer = await call('get_refund', 'GET', `/sbp/v1/refund/${encodeURIComponent(refundId)}`, ctx);
    if (answer.status === 404) return null;
    refuseUnlessOk(answer, 'get_refund');
    return refundStateOf(bodyOf(answer, 'get_refund'), refundId, 'get_refund');
  }

  return {
    name: PROVIDER,
    cancelsPayments: true,

    async createPayment(request: CreatePaymentRequest, ctx: CallContext): Promise<ProviderPayment> {
      // Register is the one call the bank documents without authorization: `sbpMerchantId` names the merchant.
      const answer = await call('create_payment', 'POST', '/sbp/v1/qr/register', ctx, registerQrBody(request, config.sbpMerchantId), false);
      refuseUnlessOk(answer, 'create_payment');
      const body = bodyOf(answer, 'create_payment');
      const { qrId, payload } = body;
      if (typeof qrId !== 'string' || qrId === '' || typeof payload !== 'string' || !payload.startsWith('https://')) {
        throw new ProviderUnavailableError(PROVIDER, 'create_payment', 'bad_answer');
      }
      return {
        gatewayPaymentId: qrId,
        depositAddress: payload,
        qr: payload,
        toCurrency: 'RUB',
        payerCurrency: 'RUB',
        payerCryptoAmount: null,
        network: 'SBP',
      };
    },

    async getPayment(ref, ctx): Promise<PaymentState | null> {
      const answer = await call('get_payment', 'GET', `/sbp/v1/qr/${encodeURIComponent(ref.gatewayPaymentId)}/payment-info`, ctx);
      // The bank answers 404 (ERROR.NOT_FOUND, "QR не был оплачен") until the QR is paid.
      if (answer.status === 404) return null;
      refuseUnlessOk(answer, 'get_payment');
      const body = bodyOf(answer, 'get_payment');
      const state = paymentStateOf(body, memberText(body, 'amount'));
      if (state?.gatewayPaymentId !== ref.gatewayPaymentId) throw new ProviderUnavailableError(PROVIDER, 'get_payment', 'bad_answer');
      return state;
    },

    async cancelPayment(ref, ctx): Promise<void> {
      const answer = await call('cancel_payment', 'DELETE', `/sbp/v2/qrs/${encodeURIComponent(ref.gatewayPaymentId)}`, ctx);
      // No such QR: nothing is left that a buyer could pay.
      if (answer.status === 404) return;
      refuseUnlessOk(answer, 'cancel_payment');
    },

    async createRefund(request: CreateRefundRequest, ctx: CallContext): Promise<RefundState> {
      const answer = await call('create_refund', 'POST', '/sbp/v1/refund', ctx, refundBody(request));
      if (answer.status >= 400) {
        // A repeat of a refund whose first answer was lost may be refused as a duplicate (the bank does not document
        // how): the refund under our id, if there is one, is the answer; only without one is this a refusal.
        const existing = await readRefund(request.refundId, ctx);
        if (existing) return existing;
      }
      refuseUnlessOk(answer, 'create_refund');
      return refundStateOf(bodyOf(answer, 'create_refund'), request.refundId, 'create_refund');
    },

    getRefund: (ref: RefundRef, ctx: CallContext) => readRefund(ref.refundId, ctx),

    verifyCallback: (request) =>
      verifyRaiffeisenCallback(request, { secretKey: config.secretKey, sbpMerchantId: config.sbpMerchantId, senderAllowed }),

    // The bank publishes no list of what it takes: the merchant account takes SBP, and an outage shows at create.
    availableMethods: () => Promise.resolve(SBP_ONLY),
  };
}
