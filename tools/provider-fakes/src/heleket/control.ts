import type { ServerResponse } from 'node:http';
import type { CallbackPolicy, Delivery, Fault } from './fake-types';
import type { HeleketStatus, Invoice, Service } from './invoices';
import type { RefundRecord } from './api';

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
}

/**
 * The fake's control API for a process run (a local `npm start`, an end-to-end test in another process):
 * - `POST /_fake/invoices/{uuid}/status` `{ status, payment_amount? }` moves an invoice and sends its callback;
 * - `POST /_fake/faults` `{ path, fault }` arms a fault (see Fault) for the next requests of an API path;
 * - `POST /_fake/callbacks` `{ mode?, delay_ms?, repeat? }` sets the callback policy; `POST /_fake/callbacks/release`
 *   `{ reverse? }` sends the held ones;
 * - `POST /_fake/services` `{ currency, network, is_available?, is_enabled? }` switches one item of the services list;
 * - `GET /_fake/state` returns the invoices, the request counts by path, the refunds and the deliveries.
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
  if (method === 'GET' && path === '/_fake/state') {
    const counts = Object.fromEntries(
      ['/v1/payment', '/v1/payment/info', '/v1/payment/refund', '/v1/payment/services'].map((p) => [p, fake.count(p)]),
    );
    reply(res, 200, { invoices: [...fake.invoices.values()], counts, refunds: fake.refunds, deliveries: fake.deliveries });
    return;
  }
  reply(res, 404, { error: 'unknown control route' });
}
