import { formatKopecks } from '@pl/money';
import {
  ProviderRefusedError,
  ProviderUnavailableError,
  type AvailableMethods,
  type CallContext,
  type CallbackRequest,
  type CallbackVerdict,
  type CreatePaymentRequest,
  type CreateRefundRequest,
  type PaymentProvider,
  type PaymentState,
  type ProviderPayment,
  type RefundRef,
  type RefundState,
} from '../provider';
import { callbackAllowlist, verifyHeleketCallback } from './callback';
import { heleketCall, isNotFound, type HeleketCredentials } from './client';
import { fieldsOfObject, paymentStateOf } from './invoice-state';
import { HELEKET_NETWORKS } from './networks';
import type { PhpJson } from './php-json';
import { cachedServices, lastKnownServices, parseServices, type HeleketNetworkService } from './services-list';

export interface HeleketConfig {
  /** `HELEKET_API_URL`, default `https://api.heleket.com`. */
  readonly apiUrl: string;
  /** `HELEKET_MERCHANT_ID`. */
  readonly merchantId: string;
  /** `HELEKET_PAYMENT_KEY`: invoices, their status and their callbacks. */
  readonly paymentKey: string;
  /** `HELEKET_PAYOUT_KEY`: refunds. */
  readonly payoutKey: string;
  /** `PUBLIC_BASE_URL`: where Heleket sends callbacks (`/callbacks/v1/heleket`). */
  readonly publicBaseUrl: string;
  /** `HELEKET_CALLBACK_IPS`: addresses or CIDRs a callback may come from; empty allows any. */
  readonly callbackIps: readonly string[];
  /** The clock (ms since the epoch) of invoice lifetimes and the services list's cache; `Date.now` unless a test sets it. */
  readonly now?: () => number;
}

export interface HeleketProvider extends PaymentProvider {
  readonly name: 'heleket';
  /** The platform's networks in Heleket's services list, read at most once per 10 minutes. */
  networkServices(ctx: CallContext): Promise<readonly HeleketNetworkService[]>;
}

/** Heleket's bounds on an invoice's lifetime, in seconds (5 minutes to 12 hours). */
const MIN_LIFETIME_S = 300;
const MAX_LIFETIME_S = 43_200;
/** Heleket refuses a URL longer than this (url_return, url_success, url_callback). */
const MAX_URL_LENGTH = 255;

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === 'object' && v !== null && !Array.isArray(v);
const trimSlash = (url: string): string => url.replace(/\/+$/, '');

function lifetimeSeconds(expiresAt: Date, now: number): number {
  const left = Math.floor((expiresAt.getTime() - now) / 1000);
  return Math.min(MAX_LIFETIME_S, Math.max(MIN_LIFETIME_S, left));
}

/**
 * The invoice of one attempt (`POST /v1/payment`). The return URLs are left out when the link has none or when
 * Heleket would refuse them for their length: the buyer pays on our checkout, and a refused create would cost the sale.
 */
function invoiceBody(request: CreatePaymentRequest, config: HeleketConfig, now: number): Record<string, PhpJson> {
  if (request.network === null) throw new ProviderRefusedError('heleket', 'create', 'Heleket takes crypto payments only', 422);
  const { currency, network } = HELEKET_NETWORKS[request.network];
  const back: Record<string, PhpJson> =
    request.returnUrl !== null && request.returnUrl.length <= MAX_URL_LENGTH ? { url_return: request.returnUrl, url_success: request.returnUrl } : {};
  return {
    amount: formatKopecks(request.payerAmountKopecks),
    currency: 'RUB',
    order_id: request.orderId,
    to_currency: currency,
    network,
    url_callback: `${trimSlash(config.publicBaseUrl)}/callbacks/v1/heleket`,
    ...back,
    lifetime: lifetimeSeconds(request.expiresAt, now),
    is_payment_multiple: true,
    additional_data: request.linkId,
  };
}

/** What the checkout draws: the deposit address (docs/providers.md says why not a payment URI yet). */
const qrOf = (address: string): string => address;

function paymentOf(result: unknown, request: CreatePaymentRequest): ProviderPayment {
  const r = isRecord(result) ? result : {};
  const text = (key: string): string | null => (typeof r[key] === 'string' && r[key] !== '' ? r[key] : null);
  const uuid = text('uuid');
  const address = text('address');
  const payerAmount = text('payer_amount');
  const payerCurrency = text('payer_currency');
  // An invoice without these cannot be paid on our checkout; the same order id fetches it again on a retry.
  if (uuid === null || address === null || payerAmount === null || payerCurrency === null || request.network === null) {
    throw new ProviderUnavailableError('heleket', 'create', 'bad_answer');
  }
  return {
    gatewayPaymentId: uuid,
    depositAddress: address,
    qr: qrOf(address),
    toCurrency: payerCurrency,
    payerCurrency,
    payerCryptoAmount: payerAmount,
    network: request.network,
  };
}

/** A Heleket invoice's state from `payment/info`, or null when Heleket does not know the invoice. */
async function readInvoice(
  creds: HeleketCredentials,
  key: string,
  ref: { readonly uuid: string } | { readonly order_id: string },
  operation: string,
  ctx: CallContext,
): Promise<PaymentState | null> {
  let result: unknown;
  try {
    result = await heleketCall(creds, key, operation, 'payment/info', ref, ctx);
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
  const state = isRecord(result) ? paymentStateOf(fieldsOfObject(result)) : null;
  if (state === null) throw new ProviderUnavailableError('heleket', operation, 'bad_answer');
  return state;
}

/**
 * Refuses to send a refund that could be a repeat of one Heleket already has (no idempotency key exists for Heleket
 * refunds): returns the refund Heleket shows instead, or null when a refund may be sent.
 */
function refundAlreadyThere(payment: PaymentState, request: CreateRefundRequest): RefundState | null {
  const refund = payment.refund;
  if (refund === null) return null;
  if (request.firstCall !== true) return refund;
  if (refund.status === 'pending') throw new ProviderRefusedError('heleket', 'refund', 'Another refund of this payment is in progress', 409);
  return null;
}

/** The Heleket adapter (docs/product-decisions.md, "Heleket (crypto)"), from plain configuration values. */
export function heleketProvider(config: HeleketConfig): HeleketProvider {
  const now = config.now ?? Date.now;
  const creds: HeleketCredentials = { apiUrl: trimSlash(config.apiUrl), merchantId: config.merchantId };
  const allowed = callbackAllowlist(config.callbackIps);
  const services = cachedServices(
    async (ctx) => parseServices(await heleketCall(creds, config.paymentKey, 'services', 'payment/services', null, ctx)),
    now,
  );
  const lastKnown = lastKnownServices(services, now);

  return {
    name: 'heleket',

    async createPayment(request, ctx) {
      const body = invoiceBody(request, config, now());
      return paymentOf(await heleketCall(creds, config.paymentKey, 'create', 'payment', body, ctx), request);
    },

    readsByOrderId: true,

    // An attempt whose create answer was lost has no uuid: `payment/info` finds its invoice by our order id.
    getPayment(ref, ctx) {
      const by = ref.gatewayPaymentId === '' ? { order_id: ref.orderId } : { uuid: ref.gatewayPaymentId };
      return readInvoice(creds, config.paymentKey, by, 'status', ctx);
    },

    // Heleket has no call to cancel an invoice: it ends unpaid (`cancel`) at the end of its lifetime.
    cancelPayment() {
      return Promise.resolve();
    },

    async createRefund(request, ctx) {
      if (request.destination === null) throw new ProviderRefusedError('heleket', 'refund', 'A crypto refund needs the address to send it to', 422);
      const payment = await readInvoice(creds, config.paymentKey, { uuid: request.gatewayPaymentId }, 'refund', ctx);
      if (payment === null) throw new ProviderRefusedError('heleket', 'refund', 'Payment not found', 404);
      const existing = refundAlreadyThere(payment, request);
      if (existing !== null) return existing;
      const body: Record<string, PhpJson> = {
        uuid: request.gatewayPaymentId,
        address: request.destination,
        is_subtract: true,
        ...(request.whole ? {} : { amount: formatKopecks(request.amountKopecks) }),
      };
      await heleketCall(creds, config.payoutKey, 'refund', 'payment/refund', body, ctx);
      return { provider: 'heleket', refundId: null, gatewayRefundId: request.gatewayPaymentId, status: 'pending', providerStatus: 'refund_process' };
    },

    async getRefund(ref: RefundRef, ctx) {
      const payment = await readInvoice(creds, config.paymentKey, { uuid: ref.gatewayPaymentId }, 'refund_status', ctx);
      return payment?.refund ?? null;
    },

    verifyCallback(request: CallbackRequest): CallbackVerdict {
      return verifyHeleketCallback(request, config.paymentKey, allowed);
    },

    networkServices: services,

    // A network is offered when Heleket can take it now and the merchant profile has it on. Its limits are in the
    // coin, which the platform learns only from the invoice: Heleket refuses an amount outside them (a 422).
    async availableMethods(ctx): Promise<AvailableMethods> {
      const list = await lastKnown(ctx);
      return {
        sbp: false,
        networks: list.filter((s) => s.available && s.enabled).map((s) => ({ network: s.network, minAmount: s.minAmount, maxAmount: s.maxAmount })),
      };
    },
  };
}
