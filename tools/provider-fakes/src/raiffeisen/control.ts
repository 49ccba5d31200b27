import type { Fault, JsonAnswer } from '../fake-http';
import type { PayOptions, RaiffeisenRequestKind } from './fake-types';
import type { CallbackMode, Delivery, DeliveryOptions } from './notifications';
import type { QrBook } from './qr-book';
import type { RequestLedger } from '../fake-http';

/** What the control API drives of a fake (the RaiffeisenSbpFake), named here so the two modules do not import each other. */
interface ControlledRaiffeisenFake {
  readonly book: QrBook;
  readonly ledger: RequestLedger;
  readonly requests: RequestLedger['requests'];
  callbackMode: CallbackMode;
  callbackUrl: string | null;
  pay(qrId: string, options?: PayOptions): Promise<Delivery[]>;
  underpay(qrId: string, byKopecks?: number, options?: DeliveryOptions): Promise<Delivery[]>;
  overpay(qrId: string, byKopecks?: number, options?: DeliveryOptions): Promise<Delivery[]>;
  decline(qrId: string, options?: DeliveryOptions): Promise<Delivery[]>;
  redeliver(qrId: string, options?: DeliveryOptions): Promise<Delivery[]>;
  expire(qrId: string): void;
  settleRefund(refundId: string, status: 'COMPLETED' | 'DECLINED'): void;
  fail(kind: RaiffeisenRequestKind | '*', fault: Fault, times?: number): void;
  releaseCallbacks(order?: 'fifo' | 'reverse'): Promise<Delivery[]>;
  reset(): void;
}

/**
 * The fake's control API under `/_fake/`, for a fake run as a process (`npm start` against the fakes, or a test in
 * another process): the same levers as the in-process methods. Local only: it listens on 127.0.0.1 and moves no
 * real money. Amounts are rouble texts (`"100.50"`), as the bank's API writes them.
 *
 * - `GET /_fake/qrs`: the QRs (id, order, amount, status)
 * - `POST /_fake/qrs/{qrId}/pay` `{ amount?, amount_text?, repeat?, delay_ms? }`; `/underpay` and `/overpay`
 *   `{ by?, repeat?, delay_ms? }` (`by` in roubles, default `"1"`); `/decline`; `/expire`; `/redeliver`
 * - `POST /_fake/refunds/{refundId}/complete`, `/decline`
 * - `POST /_fake/faults` `{ kind, type: status|hang|delay|reset, status?, ms?, processed?, times? }`
 * - `PUT /_fake/callbacks` `{ mode?: deliver|drop|hold, url? }`; `POST /_fake/callbacks/release` `{ order?: fifo|reverse }`
 * - `GET /_fake/requests`: counts by kind and the requests (the Authorization value masked); `POST /_fake/reset`
 */

const KINDS: readonly string[] = ['register', 'qr_info', 'cancel', 'payment_info', 'refund', 'refund_info', 'callback_settings', '*'];

const CALLBACK_MODES: readonly CallbackMode[] = ['deliver', 'drop', 'hold'];

const ok = (body: unknown = { ok: true }): JsonAnswer => ({ status: 200, body });
const bad = (message: string, status = 400): JsonAnswer => ({ status, body: { code: 'FAKE.BAD_CONTROL', message } });

function kopecksOfText(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{1,13}(\.\d{1,2})?$/.test(value)) return undefined;
  const [roubles = '0', cents = ''] = value.split('.');
  return Number(roubles) * 100 + Number(cents.padEnd(2, '0'));
}

function faultOf(body: Record<string, unknown>): Fault | string {
  switch (body.type) {
    case 'status':
      return typeof body.status === 'number' && body.status >= 400 && body.status <= 599
        ? { type: 'status', status: body.status, processed: body.processed === true }
        : 'status must be an HTTP error status';
    case 'hang':
      return { type: 'hang', processed: body.processed === true };
    case 'delay':
      return typeof body.ms === 'number' && body.ms >= 0 ? { type: 'delay', ms: body.ms } : 'ms must be a number';
    case 'reset':
      return { type: 'reset' };
    default:
      return 'type must be status, hang, delay or reset';
  }
}

export async function controlRoute(fake: ControlledRaiffeisenFake, method: string, path: string, text: string): Promise<JsonAnswer> {
  let body: Record<string, unknown> = {};
  if (text.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      return bad('body must be a JSON object');
    }
  }
  const delivery = { repeat: typeof body.repeat === 'number' ? body.repeat : 0, delayMs: typeof body.delay_ms === 'number' ? body.delay_ms : 0 };
  const parts = path.split('/').filter(Boolean).slice(1).map(decodeURIComponent);
  try {
    if (method === 'GET' && parts.join('/') === 'qrs') {
      return ok(
        [...fake.book.qrs.values()].map((q) => ({
          qr_id: q.qrId,
          order: q.order,
          amount: q.amountText,
          status: q.status,
          payment: q.payment?.status ?? null,
        })),
      );
    }
    if (method === 'POST' && parts[0] === 'qrs' && parts.length === 3) {
      const qrId = parts[1] ?? '';
      const by = kopecksOfText(body.by ?? '1');
      if (by === undefined) return bad('by must be roubles, e.g. "1.50"');
      switch (parts[2]) {
        case 'pay': {
          const amountKopecks = body.amount === undefined ? undefined : kopecksOfText(body.amount);
          if (body.amount !== undefined && amountKopecks === undefined) return bad('amount must be roubles, e.g. "100.50"');
          const amountText = typeof body.amount_text === 'string' ? body.amount_text : undefined;
          return ok({ deliveries: await fake.pay(qrId, { ...delivery, amountKopecks, amountText }) });
        }
        case 'underpay':
          return ok({ deliveries: await fake.underpay(qrId, by, delivery) });
        case 'overpay':
          return ok({ deliveries: await fake.overpay(qrId, by, delivery) });
        case 'decline':
          return ok({ deliveries: await fake.decline(qrId, delivery) });
        case 'redeliver':
          return ok({ deliveries: await fake.redeliver(qrId, delivery) });
        case 'expire':
          fake.expire(qrId);
          return ok();
      }
    }
    if (method === 'POST' && parts[0] === 'refunds' && parts.length === 3 && (parts[2] === 'complete' || parts[2] === 'decline')) {
      fake.settleRefund(parts[1] ?? '', parts[2] === 'complete' ? 'COMPLETED' : 'DECLINED');
      return ok();
    }
    if (method === 'POST' && parts.join('/') === 'faults') {
      const kind = typeof body.kind === 'string' ? body.kind : '';
      if (!KINDS.includes(kind)) return bad(`kind must be one of ${KINDS.join(', ')}`);
      const fault = faultOf(body);
      if (typeof fault === 'string') return bad(fault);
      fake.fail(kind as RaiffeisenRequestKind | '*', fault, typeof body.times === 'number' ? body.times : 1);
      return ok();
    }
    if (method === 'PUT' && parts.join('/') === 'callbacks') {
      if (body.mode !== undefined) {
        const mode = CALLBACK_MODES.find((m) => m === body.mode);
        if (!mode) return bad('mode must be deliver, drop or hold');
        fake.callbackMode = mode;
      }
      if (typeof body.url === 'string') fake.callbackUrl = body.url;
      return ok();
    }
    if (method === 'POST' && parts.join('/') === 'callbacks/release') {
      return ok({ deliveries: await fake.releaseCallbacks(body.order === 'reverse' ? 'reverse' : 'fifo') });
    }
    if (method === 'GET' && parts.join('/') === 'requests') {
      const requests = fake.requests.map((r) => ({
        kind: r.kind,
        method: r.method,
        url: r.url,
        headers: { ...r.headers, ...(r.headers.authorization ? { authorization: 'Bearer ***' } : {}) },
      }));
      return ok({ counts: fake.ledger.counts(), requests });
    }
    if (method === 'POST' && parts.join('/') === 'reset') {
      fake.reset();
      return ok();
    }
    return bad('no such control route', 404);
  } catch (e) {
    return bad(e instanceof Error ? e.message : 'failed', 409);
  }
}
