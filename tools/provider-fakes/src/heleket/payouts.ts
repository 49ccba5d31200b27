import { randomBytes, randomUUID } from 'node:crypto';
import { COINS, coinAmount, toUnits, type Service } from './invoices';
import type { Body } from './validation';

/**
 * The fake's payouts (reference 1.13): what `POST /v1/payout` creates, what `POST /v1/payout/info` shows and what payout
 * webhooks carry. A payout is kept by its `order_id`, which Heleket takes once: a second create of the same order id
 * is refused and pays nothing.
 */

/** Payout statuses (reference 1.13): `process` and `check` are not final; the others are. */
export type PayoutStatusWord = 'process' | 'check' | 'paid' | 'fail' | 'cancel' | 'system_fail';

export const PAYOUT_STATUS_WORDS: readonly PayoutStatusWord[] = ['process', 'check', 'paid', 'fail', 'cancel', 'system_fail'];

const FINAL: ReadonlySet<PayoutStatusWord> = new Set(['paid', 'fail', 'cancel', 'system_fail']);

export interface Payout {
  readonly uuid: string;
  readonly orderId: string;
  /** As asked, in `currency` (`"1500.00"` RUB). */
  readonly amount: string;
  readonly currency: string;
  /** The coin sent (`to_currency`) and how much of it, at the fake's rate. */
  readonly payerCurrency: string;
  readonly payerAmount: string;
  readonly network: string;
  readonly address: string;
  readonly isSubtract: boolean;
  readonly urlCallback: string | null;
  readonly createdAt: string;
  status: PayoutStatusWord;
  txid: string | null;
  /** Why it failed, when a test says (Cryptomus's webhook has `fail_reason`; Heleket documents none). */
  failReason: string | null;
  updatedAt: string;
}

/** A 422 of the documented shape: `{ state: 1, errors: { field: ["validation.<rule>"] } }`. */
export type PayoutErrors = Record<string, string[]>;

/** Heleket's limit of a payout's order id (reference 1.13: 32 in payout/info). */
const MAX_ORDER_ID = 32;
const DECIMAL = /^\d+(\.\d+)?$/;
const ALPHA_DASH = /^[A-Za-z0-9_-]+$/;
const FIAT = new Set(['RUB', 'USD', 'EUR']);
const PRIORITIES = new Set(['recommended', 'economy', 'high', 'highest']);

function urlRule(v: unknown): string | null {
  if (v === undefined) return null;
  if (typeof v !== 'string') return 'string';
  if (v.length < 6 || v.length > 255) return 'between.string';
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol) ? null : 'url';
  } catch {
    return 'url';
  }
}

/** The documented fields of `POST /v1/payout`: required amount, currency, order_id, address, is_subtract. */
export function validatePayout(body: Body): PayoutErrors | null {
  const errors: PayoutErrors = {};
  const add = (field: string, rule: string | null): void => {
    if (rule !== null) (errors[field] ??= []).push(`validation.${rule}`);
  };
  const text = (v: unknown, required: boolean): string | null =>
    v === undefined || v === null ? (required ? 'required' : null) : typeof v === 'string' ? null : 'string';
  const { amount, currency, order_id: orderId, to_currency: toCurrency } = body;
  add('amount', text(amount, true) ?? (DECIMAL.test(amount as string) ? null : 'numeric'));
  add('currency', text(currency, true));
  add(
    'order_id',
    text(orderId, true) ?? (!ALPHA_DASH.test(orderId as string) ? 'alpha_dash' : (orderId as string).length > MAX_ORDER_ID ? 'max.string' : null),
  );
  add('address', text(body.address, true));
  add(
    'is_subtract',
    body.is_subtract === undefined
      ? 'required'
      : typeof body.is_subtract === 'boolean' || body.is_subtract === '1' || body.is_subtract === '0'
        ? null
        : 'boolean',
  );
  add('network', text(body.network, false));
  add('to_currency', typeof currency === 'string' && FIAT.has(currency) && toCurrency === undefined ? 'required_if' : text(toCurrency, false));
  add('url_callback', urlRule(body.url_callback));
  add('priority', body.priority === undefined || PRIORITIES.has(body.priority as string) ? null : 'in');
  add('memo', text(body.memo, false));
  return Object.keys(errors).length === 0 ? null : errors;
}

const nowText = (): string => new Date().toISOString().replace('T', ' ').slice(0, 19);

/**
 * What the fake does with a valid create: a refusal's message, or the payout made. Heleket's business refusals come as
 * `{ state: 1, message }`; the fake's are the order id already taken, a currency it cannot convert, a coin and network
 * its services list does not have, and an amount over the business balance.
 */
export function makePayout(
  body: Body,
  book: { readonly payouts: ReadonlyMap<string, Payout>; readonly services: readonly Service[]; readonly payoutBalanceKopecks: bigint | null },
): { readonly refused: string } | { readonly payout: Payout } {
  const orderId = body.order_id as string;
  if (book.payouts.has(orderId)) return { refused: 'Payout with this order_id already exists' };
  if (body.currency !== 'RUB') return { refused: 'The currency is not supported by the fake' };
  const coin = typeof body.to_currency === 'string' ? COINS[body.to_currency] : undefined;
  const service = book.services.find((s) => s.currency === body.to_currency && s.network === body.network);
  if (coin === undefined || !service?.is_available) return { refused: 'The payout method is not available' };
  const amount = body.amount as string;
  if (book.payoutBalanceKopecks !== null && toUnits(amount, 2) > book.payoutBalanceKopecks)
    return { refused: 'Not enough funds on the business balance' };
  const at = nowText();
  return {
    payout: {
      uuid: randomUUID(),
      orderId,
      amount,
      currency: 'RUB',
      payerCurrency: body.to_currency as string,
      payerAmount: coinAmount(amount, coin),
      network: body.network as string,
      address: body.address as string,
      isSubtract: body.is_subtract === true || body.is_subtract === '1',
      urlCallback: typeof body.url_callback === 'string' ? body.url_callback : null,
      createdAt: at,
      status: 'process',
      txid: null,
      failReason: null,
      updatedAt: at,
    },
  };
}

/**
 * The payout object of create and `payout/info` answers (the create answer of the SDKs' examples, with `order_id`, and
 * `fail_reason` when a test set one, as the webhook carries it).
 */
export function payoutObject(p: Payout): Record<string, unknown> {
  return {
    uuid: p.uuid,
    order_id: p.orderId,
    amount: p.amount,
    currency: p.currency,
    network: p.network,
    address: p.address,
    txid: p.txid,
    status: p.status,
    is_final: FINAL.has(p.status),
    payer_currency: p.payerCurrency,
    payer_amount: p.payerAmount,
    ...(p.failReason === null ? {} : { fail_reason: p.failReason }),
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

/** The payout webhook's fields (reference 1.13), without `sign`: no `txid` on a failed payout, `fail_reason` when set. */
export function payoutCallbackObject(p: Payout): Record<string, unknown> {
  return {
    type: 'payout',
    uuid: p.uuid,
    order_id: p.orderId,
    amount: p.amount,
    merchant_amount: p.amount,
    commission: '0.00',
    is_final: FINAL.has(p.status),
    status: p.status,
    ...(p.txid === null ? {} : { txid: p.txid }),
    currency: p.currency,
    network: p.network,
    payer_currency: p.payerCurrency,
    payer_amount: p.payerAmount,
    ...(p.failReason === null ? {} : { fail_reason: p.failReason }),
  };
}

/** Moves a payout as Heleket would: `paid` gets a transaction hash, a failure loses it. */
export function movePayout(p: Payout, status: PayoutStatusWord, failReason: string | null): void {
  p.status = status;
  p.txid = status === 'paid' ? (p.txid ?? randomBytes(32).toString('hex')) : FINAL.has(status) ? null : p.txid;
  p.failReason = FINAL.has(status) && status !== 'paid' ? failReason : null;
  p.updatedAt = nowText();
}
