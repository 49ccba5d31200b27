import type { CryptoNetwork } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import type { ProviderCircuit } from '../breaker';
import {
  ProviderRefusedError,
  ProviderUnavailableError,
  type CallbackRefusal,
  type CallbackReply,
  type CallbackRequest,
  type CallContext,
  type UnavailableCause,
} from '../provider';
import { CALLBACK_RECEIVED, callbackAllowlist, readSignedCallback, unknownCallbackReply } from './callback';
import { heleketCall, isNotFound, safeMessage, type HeleketCredentials } from './client';
import { fieldsOfMap, fieldsOfObject, type InvoiceFields } from './invoice-state';
import { HELEKET_NETWORKS } from './networks';
import type { PhpJson } from './php-json';
import { knownPayoutStatusOf, payoutOrderId, payoutStateOf, type PayoutState } from './payout-state';

/** Heleket's payouts (docs/providers.md, "Heleket payouts"), signed with the payout key. */

export interface HeleketPayoutsConfig {
  /** `HELEKET_API_URL`, default `https://api.heleket.com`. */
  readonly apiUrl: string;
  /** `HELEKET_MERCHANT_ID`. */
  readonly merchantId: string;
  /** `HELEKET_PAYOUT_KEY`: signs payouts and their status reads, and verifies payout webhooks. */
  readonly payoutKey: string;
  /** `HELEKET_CALLBACK_IPS`: addresses or CIDRs a webhook may come from; empty allows any. */
  readonly callbackIps: readonly string[];
  /** Heleket's circuit, shared with its payment adapter (`providerCircuit('heleket', ...)`): one API host, one circuit. */
  readonly circuit: ProviderCircuit;
}

export interface CreatePayoutRequest {
  /** Our payout id (a UUID); Heleket's `order_id` is it without hyphens. */
  readonly payoutId: string;
  /** What the destination receives the value of, in RUB kopecks (`amount`, `currency: "RUB"`; the fee is ours). */
  readonly amountKopecks: number;
  /** The destination's network (`USDT-TRC20`, ...): the adapter sends Heleket's `to_currency` and `network` for it. */
  readonly network: CryptoNetwork;
  readonly address: string;
  /** Where Heleket sends the payout's webhooks: {@link heleketPayoutCallbackUrl} of `PUBLIC_BASE_URL`. */
  readonly callbackUrl: string;
}

/**
 * How a create ended:
 * - `accepted`: Heleket has the payout (its state, usually `processing`);
 * - `already_exists`: Heleket refused the create and shows a payout of this order id (an earlier create that did
 *   arrive): that payout's state. Never a failure, never to be sent again;
 * - `refused`: Heleket refused it and has no payout of this order id: nothing will be paid (its message, safe to show);
 * - `unknown`: the outcome is unknown (deadline, reset, 5xx, a garbled answer, or the circuit open, `why`). Never repeat
 *   the create blind: ask {@link HeleketPayouts.payoutInfo} first, and send again only on `not_found`.
 */
export type CreatePayoutResult =
  | ({ readonly outcome: 'accepted' } & PayoutState)
  | ({ readonly outcome: 'already_exists' } & PayoutState)
  | { readonly outcome: 'refused'; readonly message: string; readonly httpStatus: number }
  | { readonly outcome: 'unknown'; readonly why: UnavailableCause };

/** `payoutInfo`'s answer for an order id Heleket does not know: no create of it arrived, so one may be sent. */
export interface PayoutNotFound {
  readonly status: 'not_found';
  readonly payoutId: string;
}

export type PayoutCallbackVerdict =
  | { readonly ok: true; readonly state: PayoutState; readonly reply: CallbackReply }
  | { readonly ok: false; readonly reason: CallbackRefusal; readonly reply: CallbackReply };

export interface HeleketPayouts {
  /** `POST /v1/payout` under Heleket's circuit. Throws RangeError (nothing sent) for a payout id that is not a UUID, an amount that is not a positive whole number of kopecks, or a callback URL Heleket would refuse. */
  createPayout(request: CreatePayoutRequest, ctx: CallContext): Promise<CreatePayoutResult>;
  /**
   * `POST /v1/payout/info` by order id: the payout's state, or `not_found`. Rejects with ProviderUnavailableError when
   * the outcome is unknown (the caller tries later) and ProviderRefusedError for any other refusal.
   */
  payoutInfo(payoutId: string, ctx: CallContext): Promise<PayoutState | PayoutNotFound>;
  /**
   * Verifies a payout webhook (the payment webhook's rules with the payout key: sender allowed, `sign` over the body
   * without it re-encoded as PHP does, slashes escaped) and reads it. Answers 200 when verified; 401 for a bad
   * signature or sender; 400 for a body that is not JSON, not `type: payout`, or of an undocumented status (so Heleket
   * keeps it). Never throws.
   */
  verifyPayoutCallback(request: CallbackRequest): PayoutCallbackVerdict;
}

/**
 * Words of a refusal that may mean "this order id is taken" (the reference documents none for payouts): our order ids
 * are always well formed, so a refusal naming `order_id` is read as one too.
 */
const SAYS_DUPLICATE = /order_id|already|duplicate|unique/i;

/** Heleket refuses a URL longer than this (reference 1.3, url_callback). */
const MAX_URL_LENGTH = 255;

/** The path Heleket's payout webhooks are sent to (payouts.md): `{PUBLIC_BASE_URL}/callbacks/v1/heleket-payouts`. */
export const heleketPayoutCallbackUrl = (publicBaseUrl: string): string => `${publicBaseUrl.replace(/\/+$/, '')}/callbacks/v1/heleket-payouts`;

function payoutBody(request: CreatePayoutRequest): Record<string, PhpJson> {
  const orderId = payoutOrderId(request.payoutId);
  if (!Number.isSafeInteger(request.amountKopecks) || request.amountKopecks <= 0)
    throw new RangeError('amountKopecks must be a positive whole number');
  const url = request.callbackUrl;
  if (!/^https?:\/\/\S+$/.test(url) || url.length > MAX_URL_LENGTH)
    throw new RangeError(`callbackUrl must be an http(s) URL of at most ${MAX_URL_LENGTH} characters`);
  const coin = HELEKET_NETWORKS[request.network];
  if (request.address.trim() === '') throw new RangeError('address must not be empty');
  return {
    amount: formatKopecks(request.amountKopecks),
    currency: 'RUB',
    order_id: orderId,
    address: request.address,
    is_subtract: true,
    network: coin.network,
    to_currency: coin.currency,
    url_callback: url,
  };
}

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A payout's state from an answer, with our ids (the create answer does not echo `order_id`); a garbled answer is an unknown outcome. */
function stateOfAnswer(result: unknown, payoutId: string, operation: string): PayoutState {
  const state = isRecord(result) ? payoutStateOf(fieldsOfObject(result)) : null;
  const orderId = payoutOrderId(payoutId);
  if (state === null || (state.orderId !== null && state.orderId.toLowerCase() !== orderId)) {
    throw new ProviderUnavailableError('heleket', operation, 'bad_answer');
  }
  return { ...state, payoutId, orderId, failureReason: state.failureReason === null ? null : safeMessage(state.failureReason) };
}

/** Heleket's payouts client from plain configuration values (docs/providers.md, "Heleket payouts"). */
export function heleketPayouts(config: HeleketPayoutsConfig): HeleketPayouts {
  if (config.circuit.provider !== 'heleket') throw new Error(`The circuit of ${config.circuit.provider} cannot guard Heleket`);
  const creds: HeleketCredentials = { apiUrl: config.apiUrl.replace(/\/+$/, ''), merchantId: config.merchantId };
  const allowed = callbackAllowlist(config.callbackIps);
  const { circuit, payoutKey } = config;

  async function payoutInfo(payoutId: string, ctx: CallContext): Promise<PayoutState | PayoutNotFound> {
    const body = { order_id: payoutOrderId(payoutId) };
    return circuit.run('get_payout', async () => {
      let result: unknown;
      try {
        result = await heleketCall(creds, payoutKey, 'get_payout', 'payout/info', body, ctx);
      } catch (e) {
        if (isNotFound(e)) return { status: 'not_found', payoutId } as const;
        throw e;
      }
      return stateOfAnswer(result, payoutId, 'get_payout');
    });
  }

  /** After a refusal: Heleket's own word on whether a payout of this order id exists (a repeat refused as such). */
  async function afterRefusal(request: CreatePayoutRequest, refusal: ProviderRefusedError, ctx: CallContext): Promise<CreatePayoutResult> {
    let existing: PayoutState | PayoutNotFound;
    try {
      existing = await payoutInfo(request.payoutId, ctx);
    } catch (e) {
      // The refusal may be of a repeat whose payout Heleket has: without reading it, the outcome stays unknown.
      return { outcome: 'unknown', why: e instanceof ProviderUnavailableError ? e.why : 'bad_answer' };
    }
    if (existing.status !== 'not_found') return { outcome: 'already_exists', ...existing };
    // A refusal in words of a taken order id while payout/info does not show it yet: the payout may exist all the same.
    if (SAYS_DUPLICATE.test(refusal.providerMessage)) return { outcome: 'unknown', why: 'bad_answer' };
    return { outcome: 'refused', message: refusal.providerMessage, httpStatus: refusal.httpStatus };
  }

  return {
    async createPayout(request, ctx) {
      const body = payoutBody(request);
      let state: PayoutState;
      try {
        state = await circuit.run('create_payout', async () =>
          stateOfAnswer(await heleketCall(creds, payoutKey, 'create_payout', 'payout', body, ctx), request.payoutId, 'create_payout'),
        );
      } catch (e) {
        if (e instanceof ProviderUnavailableError) return { outcome: 'unknown', why: e.why };
        if (e instanceof ProviderRefusedError) return afterRefusal(request, e, ctx);
        throw e;
      }
      return { outcome: 'accepted', ...state };
    },

    payoutInfo,

    verifyPayoutCallback(request) {
      const signed = readSignedCallback(request, payoutKey, allowed);
      if (!signed.ok) return signed;
      try {
        return payoutVerdict(fieldsOfMap(signed.body));
      } catch {
        return { ok: false, reason: 'malformed', reply: unknownCallbackReply('The payout callback cannot be read') };
      }
    },
  };
}

function payoutVerdict(fields: InvoiceFields): PayoutCallbackVerdict {
  const word = fields('status');
  const state = fields('type') === 'payout' && word !== null && knownPayoutStatusOf(word) !== null ? payoutStateOf(fields) : null;
  if (state === null) return { ok: false, reason: 'malformed', reply: unknownCallbackReply('Not a payout callback with a known status') };
  return {
    ok: true,
    state: { ...state, failureReason: state.failureReason === null ? null : safeMessage(state.failureReason) },
    reply: CALLBACK_RECEIVED,
  };
}
