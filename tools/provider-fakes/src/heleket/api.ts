import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { COINS, invoiceObject, newInvoice, toUnits, type HeleketStatus, type Invoice, type Service } from './invoices';
import { makePayout, payoutObject, validatePayout, type Payout } from './payouts';
import { validateCreate, validateRefund, type Body } from './validation';

/**
 * The fake's API (the provider's published API (docs/providers.md)): `merchant` and `sign` checked, then create, info,
 * refund, services, and payouts (create and info).
 */

export interface HeleketFakeKeys {
  readonly merchantId: string;
  readonly paymentKey: string;
  readonly payoutKey: string;
}

export interface RefundRecord {
  readonly uuid: string;
  readonly address: string;
  readonly amount: string | null;
  readonly isSubtract: boolean;
}

/** What the API reads and changes: the fake's book of invoices. */
export interface FakeBook {
  readonly invoices: Map<string, Invoice>;
  readonly services: readonly Service[];
  readonly refunds: RefundRecord[];
  invoiceByOrder(orderId: string): Invoice | undefined;
  /** Payouts by order id; the business balance they are paid from, in kopecks (null: no limit). */
  readonly payouts: Map<string, Payout>;
  payoutBalanceKopecks: bigint | null;
  setStatus(uuid: string, status: HeleketStatus, paymentAmount?: string | null): Invoice;
}

/** Heleket's rule: md5(base64(body) + key), lowercase hex. */
export function fakeSign(body: string, key: string): string {
  return createHash('md5')
    .update(Buffer.from(body, 'utf8').toString('base64') + key)
    .digest('hex');
}

export function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const ok = (res: ServerResponse, result: unknown): void => send(res, 200, { state: 0, result });
export const refuse = (res: ServerResponse, message: string, status = 200): void => send(res, status, { state: 1, message });

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Answers one API request as Heleket does: headers first, then the documented fields, then the operation. */
export function answerApi(book: FakeBook, keys: HeleketFakeKeys, path: string, headers: IncomingHttpHeaders, raw: string, res: ServerResponse): void {
  // Refunds and payouts take the payout key (reference 1.1); invoices, their info and the services list the payment key.
  const key = path === '/v1/payment/refund' || path.startsWith('/v1/payout') ? keys.payoutKey : keys.paymentKey;
  const sign = headers.sign;
  if (headers.merchant !== keys.merchantId) {
    refuse(res, 'Merchant not found', 401);
    return;
  }
  if (typeof sign !== 'string' || !sameText(sign, fakeSign(raw, key))) {
    refuse(res, 'Invalid Sign', 401);
    return;
  }
  let body: Body = {};
  if (raw !== '') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        refuse(res, 'Invalid JSON', 400);
        return;
      }
      body = parsed as Body;
    } catch {
      refuse(res, 'Invalid JSON', 400);
      return;
    }
  }
  switch (path) {
    case '/v1/payment': {
      create(book, body, res);
      return;
    }
    case '/v1/payment/info': {
      info(book, body, res);
      return;
    }
    case '/v1/payment/refund': {
      refund(book, body, res);
      return;
    }
    case '/v1/payout': {
      createPayout(book, body, res);
      return;
    }
    case '/v1/payout/info': {
      payoutInfo(book, body, res);
      return;
    }
    default: {
      ok(res, book.services);
      return;
    }
  }
}

function create(book: FakeBook, body: Body, res: ServerResponse): void {
  const errors = validateCreate(body);
  if (errors !== null) {
    send(res, 422, { state: 1, errors });
    return;
  }
  const orderId = body.order_id as string;
  const existing = book.invoiceByOrder(orderId);
  // Documented: the same order_id returns the invoice already made, unchanged.
  if (existing !== undefined) {
    ok(res, invoiceObject(existing));
    return;
  }
  if (body.currency !== 'RUB') {
    refuse(res, 'The currency is not supported by the fake');
    return;
  }
  const payerCurrency = body.to_currency as string;
  const service = book.services.find((s) => s.currency === payerCurrency && s.network === body.network);
  if (service === undefined || !service.is_available || !service.is_enabled) {
    refuse(res, 'The payment method is not available');
    return;
  }
  const inv = newInvoice({
    orderId,
    amount: body.amount as string,
    currency: 'RUB',
    payerCurrency,
    network: body.network as string,
    lifetimeS: typeof body.lifetime === 'number' ? body.lifetime : 3600,
    urlCallback: typeof body.url_callback === 'string' ? body.url_callback : null,
    additionalData: typeof body.additional_data === 'string' ? body.additional_data : null,
  });
  const decimals = COINS[payerCurrency]?.decimals ?? 8;
  const units = toUnits(inv.payerAmount, decimals);
  if (units < toUnits(service.limit.min_amount, decimals)) {
    refuse(res, `Minimum amount ${service.limit.min_amount} ${payerCurrency}`);
    return;
  }
  if (units > toUnits(service.limit.max_amount, decimals)) {
    refuse(res, `Maximum amount ${service.limit.max_amount} ${payerCurrency}`);
    return;
  }
  book.invoices.set(inv.uuid, inv);
  ok(res, invoiceObject(inv));
}

function find(book: FakeBook, body: Body): Invoice | undefined {
  // payment/info: order_id wins when both are given (reference 1.8).
  if (typeof body.order_id === 'string') return book.invoiceByOrder(body.order_id);
  return typeof body.uuid === 'string' ? book.invoices.get(body.uuid) : undefined;
}

function info(book: FakeBook, body: Body, res: ServerResponse): void {
  if (typeof body.uuid !== 'string' && typeof body.order_id !== 'string') {
    send(res, 422, { state: 1, errors: { uuid: ['validation.required_without'], order_id: ['validation.required_without'] } });
    return;
  }
  const inv = find(book, body);
  if (inv === undefined) {
    refuse(res, 'Payment not found', 404);
    return;
  }
  ok(res, invoiceObject(inv));
}

function refund(book: FakeBook, body: Body, res: ServerResponse): void {
  const errors = validateRefund(body);
  if (errors !== null) {
    send(res, 422, { state: 1, errors });
    return;
  }
  // refund: uuid wins when both are given (reference 1.9).
  const inv = typeof body.uuid === 'string' ? book.invoices.get(body.uuid) : book.invoiceByOrder(body.order_id as string);
  if (inv === undefined) {
    refuse(res, 'Payment not found', 404);
    return;
  }
  if (inv.status === 'refund_process') {
    refuse(res, 'A refund is already in progress');
    return;
  }
  if (!['paid', 'paid_over', 'wrong_amount', 'refund_paid', 'refund_fail'].includes(inv.status)) {
    refuse(res, 'The payment cannot be refunded');
    return;
  }
  const amount = typeof body.amount === 'string' ? body.amount : null;
  if (amount !== null && toUnits(amount, 2) > toUnits(inv.amount, 2)) {
    refuse(res, 'The refund exceeds the payment');
    return;
  }
  book.refunds.push({ uuid: inv.uuid, address: body.address as string, amount, isSubtract: body.is_subtract === true });
  book.setStatus(inv.uuid, 'refund_process');
  ok(res, []);
}

function createPayout(book: FakeBook, body: Body, res: ServerResponse): void {
  const errors = validatePayout(body);
  if (errors !== null) {
    send(res, 422, { state: 1, errors });
    return;
  }
  const made = makePayout(body, book);
  if ('refused' in made) {
    refuse(res, made.refused);
    return;
  }
  const { payout } = made;
  book.payouts.set(payout.orderId, payout);
  if (book.payoutBalanceKopecks !== null) book.payoutBalanceKopecks -= toUnits(payout.amount, 2);
  // The create answer of the SDKs' examples: no order_id, the balance left.
  const answer = payoutObject(payout);
  delete answer.order_id;
  const left = book.payoutBalanceKopecks;
  ok(res, { ...answer, balance: left === null ? null : `${left / 100n}.${(left % 100n).toString().padStart(2, '0')}` });
}

function payoutInfo(book: FakeBook, body: Body, res: ServerResponse): void {
  if (typeof body.uuid !== 'string' && typeof body.order_id !== 'string') {
    send(res, 422, { state: 1, errors: { uuid: ['validation.required_without'], order_id: ['validation.required_without'] } });
    return;
  }
  // payout/info: order_id wins when both are given (reference 1.13).
  const payout = typeof body.order_id === 'string' ? book.payouts.get(body.order_id) : [...book.payouts.values()].find((p) => p.uuid === body.uuid);
  if (payout === undefined) {
    refuse(res, 'Payout not found', 404);
    return;
  }
  ok(res, payoutObject(payout));
}
