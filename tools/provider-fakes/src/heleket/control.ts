import type { ServerResponse } from 'node:http';
import type { CallbackPolicy, Delivery, Fault } from './fake-types';
import type { HeleketStatus, Invoice, Service } from './invoices';
import type { RefundRecord } from './api';
import { PAYOUT_STATUS_WORDS, type Payout, type PayoutStatusWord } from './payouts';

/** What the control API drives of a fake (the HeleketFake), named here so the two modules do not import each other. */
interface ControlledHeleketFake {
  readonly invoices: ReadonlyMap<string, Invoice>;
  readonly refunds: readonly RefundRecord[];
  readonly deliveries: readonly Delivery[];
  readonly callbackPolicy: CallbackPolicy;
  setStatus(uuid: string, status: HeleketStatus, paymentAmount?: string | null): Invoice;
  fault(path: string, fault: Fault): void;
  releaseCallbacks(options?: { reverse?: boolean }): Promise<void>;
  count(path: string): number;
  services: Service[];
  readonly payouts: ReadonlyMap<string, Payout>;
  readonly payoutDeliveries: readonly Delivery[];
  payoutBalanceKopecks: bigint | null;
  payout(id: string): Payout | undefined;
  setPayoutStatus(id: string, status: PayoutStatusWord, failReason?: string | null): Payout;
}

const API_PATHS = ['/v1/payment', '/v1/payment/info', '/v1/payment/refund', '/v1/payment/services', '/v1/payout', '/v1/payout/info'];
const KOPECKS = /^(\d{1,15})\.(\d{2})$/;

const rubText = (k: bigint): string => `${k / 100n}.${(k % 100n).toString().padStart(2, '0')}`;

/**
 * The fake's control API for a process run (a local `npm start`, an end-to-end test in another process):
 * - `POST /_fake/invoices/{uuid}/status` `{ status, payment_amount? }` moves an invoice and sends its callback;
 * - `POST /_fake/faults` `{ path, fault }` arms a fault (see Fault) for the next requests of an API path;
 * - `POST /_fake/callbacks` `{ mode?, delay_ms?, repeat? }` sets the callback policy; `POST /_fake/callbacks/release`
 *   `{ reverse? }` sends the held ones;
 * - `POST /_fake/services` `{ currency, network, is_available?, is_enabled? }` switches one item of the services list;
 * - `POST /_fake/payouts/{order_id or uuid}/status` `{ status, fail_reason? }` moves a payout (`paid`, `fail`, `cancel`,
 *   `system_fail`, `process`, `check`) and sends its webhook signed with the payout key;
 * - `POST /_fake/payouts/balance` `{ balance: "1500.00" | null }` sets the business balance payouts are paid from;
 * - `GET /_fake/state` returns the invoices, the request counts by path (`/v1/payout` counts every payout create that
 *   reached the fake), the refunds, the deliveries, the payouts, their deliveries and the balance.
 */
function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function parse(body: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body || '{}');
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export async function handleControl(fake: ControlledHeleketFake, method: string, path: string, raw: string, res: ServerResponse): Promise<void> {
  const body = parse(raw);
  const status = /^\/_fake\/invoices\/([^/]+)\/status$/.exec(path);
  if (method === 'POST' && status?.[1] !== undefined) {
    if (!fake.invoices.has(status[1])) {
      reply(res, 404, { error: 'no such invoice' });
      return;
    }
    const amount = typeof body.payment_amount === 'string' ? body.payment_amount : null;
    reply(res, 200, fake.setStatus(status[1], body.status as HeleketStatus, amount));
    return;
  }
  if (method === 'POST' && path === '/_fake/faults' && typeof body.path === 'string') {
    fake.fault(body.path, body.fault as Fault);
    reply(res, 200, { armed: true });
    return;
  }
  if (method === 'POST' && path === '/_fake/callbacks') {
    const policy = fake.callbackPolicy;
    if (body.mode === 'send' || body.mode === 'drop' || body.mode === 'hold') policy.mode = body.mode;
    if (typeof body.delay_ms === 'number') policy.delayMs = body.delay_ms;
    if (typeof body.repeat === 'number') policy.repeat = body.repeat;
    reply(res, 200, policy);
    return;
  }
  if (method === 'POST' && path === '/_fake/callbacks/release') {
    await fake.releaseCallbacks({ reverse: body.reverse === true });
    reply(res, 200, { released: true });
    return;
  }
  if (method === 'POST' && path === '/_fake/services') {
    const item = fake.services.find((s) => s.currency === body.currency && s.network === body.network);
    if (!item) {
      reply(res, 404, { error: 'no such service' });
      return;
    }
    const changed = {
      ...item,
      ...(typeof body.is_available === 'boolean' ? { is_available: body.is_available } : {}),
      ...(typeof body.is_enabled === 'boolean' ? { is_enabled: body.is_enabled } : {}),
    };
    fake.services = fake.services.map((s) => (s === item ? changed : s));
    reply(res, 200, changed);
    return;
  }
  const payoutStatus = /^\/_fake\/payouts\/([^/]+)\/status$/.exec(path);
  if (method === 'POST' && payoutStatus?.[1] !== undefined && payoutStatus[1] !== 'balance') {
    const word = body.status as PayoutStatusWord;
    if (!PAYOUT_STATUS_WORDS.includes(word)) {
      reply(res, 400, { error: `status must be one of ${PAYOUT_STATUS_WORDS.join(', ')}` });
      return;
    }
    if (fake.payout(payoutStatus[1]) === undefined) {
      reply(res, 404, { error: 'no such payout' });
      return;
    }
    reply(res, 200, fake.setPayoutStatus(payoutStatus[1], word, typeof body.fail_reason === 'string' ? body.fail_reason : null));
    return;
  }
  if (method === 'POST' && path === '/_fake/payouts/balance') {
    const m = typeof body.balance === 'string' ? KOPECKS.exec(body.balance) : null;
    if (body.balance !== null && m === null) {
      reply(res, 400, { error: 'balance must be RUB with two decimals ("1500.00") or null' });
      return;
    }
    fake.payoutBalanceKopecks = m === null ? null : BigInt(`${m[1]}${m[2]}`);
    reply(res, 200, { balance: body.balance });
    return;
  }
  if (method === 'GET' && path === '/_fake/state') {
    const counts = Object.fromEntries(API_PATHS.map((p) => [p, fake.count(p)]));
    const balance = fake.payoutBalanceKopecks;
    reply(res, 200, {
      invoices: [...fake.invoices.values()],
      counts,
      refunds: fake.refunds,
      deliveries: fake.deliveries,
      payouts: [...fake.payouts.values()],
      payout_deliveries: fake.payoutDeliveries,
      payout_balance: balance === null ? null : rubText(balance),
    });
    return;
  }
  reply(res, 404, { error: 'unknown control route' });
}
