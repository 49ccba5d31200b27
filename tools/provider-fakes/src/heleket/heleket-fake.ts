import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerApi, fakeSign, refuse, send, type HeleketFakeKeys, type RefundRecord } from './api';
import { callbackObject, defaultServices, moveInvoice, type HeleketStatus, type Invoice, type Service } from './invoices';
import { handleControl } from './control';
import { movePayout, payoutCallbackObject, type Payout, type PayoutStatusWord } from './payouts';
import type { CallbackPolicy, Delivery, Fault, ReceivedRequest } from './fake-types';

/**
 * A local Heleket over real HTTP, built from the providers' published APIs (docs/providers.md) section 1: it checks the `merchant` and `sign`
 * headers and the documented fields, answers `{ state: 0, result }` or its errors, keeps invoices in memory and
 * sends signed callbacks to their `url_callback`. Tests steer it in-process; a process run of it (main.ts) is steered
 * over `/_fake/...` (control.ts). It writes JSON on its own (JSON.stringify with `/` escaped, as the community
 * reproduction of PHP does), independent of the adapter's encoder, so a difference between the two shows.
 */

export interface HeleketFakeOptions extends HeleketFakeKeys {
  readonly port?: number;
  readonly host?: string;
}

export type { CallbackPolicy, Delivery, Fault, ReceivedRequest } from './fake-types';

const API_PATHS = ['/v1/payment', '/v1/payment/info', '/v1/payment/refund', '/v1/payment/services', '/v1/payout', '/v1/payout/info'] as const;

/** `json_encode($data, JSON_UNESCAPED_UNICODE)` for the plain data the fake sends. */
function phpStyleJson(data: unknown): string {
  return JSON.stringify(data)
    .replace(/\//g, '\\/')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A callback body as Heleket sends it: the fields, then `sign` over them. */
export function signedCallbackBody(fields: Record<string, unknown>, key: string): string {
  const text = phpStyleJson(fields);
  return `${text.slice(0, -1)},"sign":"${fakeSign(text, key)}"}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class HeleketFake {
  readonly invoices = new Map<string, Invoice>();
  readonly received: ReceivedRequest[] = [];
  readonly deliveries: Delivery[] = [];
  readonly refunds: RefundRecord[] = [];
  /** Payouts by order id (one per order id, ever). */
  readonly payouts = new Map<string, Payout>();
  /** Payout webhooks sent, apart from the invoices' so a test counting one kind is not disturbed by the other. */
  readonly payoutDeliveries: Delivery[] = [];
  /** The business balance payouts are paid from, in kopecks; null (the default) is no limit. A payout takes its amount. */
  payoutBalanceKopecks: bigint | null = null;
  services: Service[] = defaultServices();
  callbackPolicy: CallbackPolicy = { mode: 'send', delayMs: 0, repeat: 1 };
  private readonly faults = new Map<string, Fault[]>();
  private readonly held: (() => Promise<void>)[] = [];
  private readonly events = new EventEmitter();
  private readonly hanging = new Set<ServerResponse>();
  private readonly server: Server;

  private constructor(private readonly options: HeleketFakeOptions) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        if (!res.headersSent) send(res, 500, { state: 1, message: e instanceof Error ? e.message : 'fake error' });
      });
    });
  }

  static async start(options: HeleketFakeOptions): Promise<HeleketFake> {
    const fake = new HeleketFake(options);
    fake.server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
    await once(fake.server, 'listening');
    return fake;
  }

  /** The base URL to give the adapter as HELEKET_API_URL. */
  get url(): string {
    const { address, port } = this.server.address() as AddressInfo;
    return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * How many requests reached `path` (`/v1/payment/refund`, `/v1/payout`, ...), whatever was answered: each one that
   * could move money is counted, faulted, refused and repeated ones included.
   */
  count(path: string): number {
    return this.received.filter((r) => r.path === path).length;
  }

  /** How long every API request waits before its answer (a provider's own latency, for the benchmarks); 0 by default. */
  latencyMs = 0;

  /** The next requests of `path` meet `fault` (`times`, default 1). */
  fault(path: string, fault: Fault): void {
    const list = this.faults.get(path) ?? [];
    for (let i = 0; i < (fault.times ?? 1); i += 1) list.push(fault);
    this.faults.set(path, list);
  }

  /** Disarms every fault, including one whose request never arrived (its caller gave up first). */
  clearFaults(): void {
    this.faults.clear();
  }

  invoiceByOrder(orderId: string): Invoice | undefined {
    return [...this.invoices.values()].find((inv) => inv.orderId === orderId);
  }

  /** Moves an invoice as Heleket would and sends its callback under the policy. */
  setStatus(uuid: string, status: HeleketStatus, paymentAmount: string | null = null): Invoice {
    const inv = this.invoices.get(uuid);
    if (inv === undefined) throw new Error(`no invoice ${uuid}`);
    moveInvoice(inv, status, paymentAmount);
    this.notify(inv);
    return inv;
  }

  pay = (uuid: string): Invoice => this.setStatus(uuid, 'paid', this.must(uuid).payerAmount);
  confirmCheck = (uuid: string): Invoice => this.setStatus(uuid, 'confirm_check', this.must(uuid).payerAmount);
  /** Part arrived and the invoice waits for the rest (`wrong_amount_waiting`). */
  payPart = (uuid: string, amount: string): Invoice => this.setStatus(uuid, 'wrong_amount_waiting', amount);
  underpay = (uuid: string, amount: string): Invoice => this.setStatus(uuid, 'wrong_amount', amount);
  overpay = (uuid: string, amount: string): Invoice => this.setStatus(uuid, 'paid_over', amount);
  lock = (uuid: string): Invoice => this.setStatus(uuid, 'locked', this.must(uuid).payerAmount);

  /** A payout by its order id or its uuid. */
  payout(id: string): Payout | undefined {
    return this.payouts.get(id) ?? [...this.payouts.values()].find((p) => p.uuid === id);
  }

  /** Moves a payout (by order id or uuid) as Heleket would and sends its webhook, signed with the payout key, under the policy. */
  setPayoutStatus(id: string, status: PayoutStatusWord, failReason: string | null = null): Payout {
    const payout = this.payout(id);
    if (payout === undefined) throw new Error(`no payout ${id}`);
    movePayout(payout, status, failReason);
    if (payout.urlCallback !== null && this.callbackPolicy.mode !== 'drop') {
      const body = signedCallbackBody(payoutCallbackObject(payout), this.options.payoutKey);
      const target = { uuid: payout.uuid, urlCallback: payout.urlCallback, list: this.payoutDeliveries, event: 'payout-delivery' };
      this.schedule(() => this.post(target, status, body));
    }
    return payout;
  }

  /** Resolves once `n` payout webhooks have been delivered (answered or failed) in all. */
  async payoutDeliveriesReach(n: number): Promise<Delivery[]> {
    while (this.payoutDeliveries.length < n) await once(this.events, 'payout-delivery');
    return this.payoutDeliveries.slice(0, n);
  }

  /** Sends the held callbacks, in the order they were made or reversed. */
  async releaseCallbacks(options: { reverse?: boolean } = {}): Promise<void> {
    const batch = this.held.splice(0);
    if (options.reverse === true) batch.reverse();
    for (const send of batch) await send();
  }

  /** Resolves once `n` requests have reached `path` in all. */
  async requestsReach(path: string, n: number): Promise<void> {
    while (this.count(path) < n) await once(this.events, 'request');
  }

  /** Resolves once `n` callbacks have been delivered (answered or failed) in all. */
  async deliveriesReach(n: number): Promise<Delivery[]> {
    while (this.deliveries.length < n) await once(this.events, 'delivery');
    return this.deliveries.slice(0, n);
  }

  private must(uuid: string): Invoice {
    const inv = this.invoices.get(uuid);
    if (inv === undefined) throw new Error(`no invoice ${uuid}`);
    return inv;
  }

  private notify(inv: Invoice): void {
    if (inv.urlCallback === null || this.callbackPolicy.mode === 'drop') return;
    const body = signedCallbackBody(callbackObject(inv), this.options.paymentKey);
    const target = { uuid: inv.uuid, urlCallback: inv.urlCallback, list: this.deliveries, event: 'delivery' };
    const status = inv.status;
    this.schedule(() => this.post(target, status, body));
  }

  /** One webhook under the callback policy: sent now, later, or held for releaseCallbacks(). */
  private schedule(send: () => Promise<void>): void {
    if (this.callbackPolicy.mode === 'hold') {
      this.held.push(send);
      return;
    }
    const { delayMs } = this.callbackPolicy;
    const go = (): void => void send();
    if (delayMs > 0) setTimeout(go, delayMs).unref();
    else go();
  }

  private async post(
    target: { readonly uuid: string; readonly urlCallback: string; readonly list: Delivery[]; readonly event: string },
    status: HeleketStatus,
    body: string,
  ): Promise<void> {
    for (let i = 0; i < this.callbackPolicy.repeat; i += 1) {
      let answer: number | null;
      try {
        const res = await fetch(target.urlCallback, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.arrayBuffer();
        answer = res.status;
      } catch {
        answer = null;
      }
      target.list.push({ uuid: target.uuid, status, body, answer });
      this.events.emit(target.event);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const body = await readBody(req);
    if (path.startsWith('/_fake/')) {
      await handleControl(this, req.method ?? 'GET', path, body, res);
      return;
    }
    this.received.push({ path, headers: req.headers, body });
    this.events.emit('request');
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    if (!(API_PATHS as readonly string[]).includes(path)) {
      refuse(res, 'Not found', 404);
      return;
    }
    if (req.method !== 'POST') {
      refuse(res, 'Method not allowed', 405);
      return;
    }
    let fault = this.faults.get(path)?.shift();
    if (fault?.kind === 'delay') {
      const { ms } = fault;
      await new Promise((resolve) => setTimeout(resolve, ms));
      fault = undefined;
    }
    if (fault?.kind === 'hang') {
      this.hang(res);
      return;
    }
    if (fault?.kind === 'status') {
      send(res, fault.status, { state: 1, message: 'Server error' });
      return;
    }
    const answered = fault === undefined ? res : null;
    answerApi(this, this.options, path, req.headers, body, answered ?? this.discard());
    if (fault?.kind === 'apply-then-status') send(res, fault.status, { state: 1, message: 'Server error' });
    else if (fault?.kind === 'apply-then-hang') this.hang(res);
    else if (fault?.kind === 'apply-then-drop') res.destroy();
  }

  private hang(res: ServerResponse): void {
    this.hanging.add(res);
    res.on('close', () => this.hanging.delete(res));
  }

  /** A response sink for a request that is applied while the real answer is replaced by a fault. */
  private discard(): ServerResponse {
    return { headersSent: false, writeHead: () => undefined, end: () => undefined } as unknown as ServerResponse;
  }
}
