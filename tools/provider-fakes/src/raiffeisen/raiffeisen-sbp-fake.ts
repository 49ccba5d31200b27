import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeServer, readBody, RequestLedger, sendJson, sendTimedJson, type Fault, type JsonAnswer, type RecordedRequest } from '../fake-http';
import { controlRoute } from './control';
import type { PayOptions, RaiffeisenRequestKind } from './fake-types';
import { BANK_MERCHANT_ID, notificationOf, Notifier, type CallbackMode, type Delivery, type DeliveryOptions } from './notifications';
import { BankError, QrBook, amountTextOf, type PaymentWord, type Qr, type RefundWord } from './qr-book';

export interface RaiffeisenSbpFakeOptions {
  /** The secret key: the Bearer key the fake demands and the key it signs notifications with. */
  readonly secretKey: string;
  readonly sbpMerchantId: string;
  /** Where notifications go (`{PUBLIC_BASE_URL}/callbacks/v1/raiffeisen-sbp`); settable later, as the bank's API allows. */
  readonly callbackUrl?: string | null;
  /** How payment-info answers for a QR not paid yet: 404 ERROR.NOT_FOUND (the old spec's example) or 200 NO_INFO. */
  readonly unpaidPaymentInfo?: 'not_found' | 'no_info';
  /** The clock (QR expiry, transaction dates). */
  readonly now?: () => Date;
}

/** The kinds of request the fake counts: one per documented operation. */
export type { PayOptions, RaiffeisenRequestKind } from './fake-types';

const ROUTES: readonly { method: string; pattern: RegExp; kind: RaiffeisenRequestKind }[] = [
  { method: 'POST', pattern: /^\/api\/sbp\/v1\/qr\/register$/, kind: 'register' },
  { method: 'GET', pattern: /^\/api\/sbp\/v2\/qrs\/([^/]+)$/, kind: 'qr_info' },
  { method: 'DELETE', pattern: /^\/api\/sbp\/v2\/qrs\/([^/]+)$/, kind: 'cancel' },
  { method: 'GET', pattern: /^\/api\/sbp\/v1\/qr\/([^/]+)\/payment-info$/, kind: 'payment_info' },
  { method: 'POST', pattern: /^\/api\/sbp\/v1\/refund$/, kind: 'refund' },
  { method: 'GET', pattern: /^\/api\/sbp\/v1\/refund\/([^/]+)$/, kind: 'refund_info' },
  { method: 'POST', pattern: /^\/api\/settings\/v1\/callback$/, kind: 'callback_settings' },
];

const objectOf = (text: string): Record<string, unknown> => {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BankError(400, 'ERROR.INVALID_REQUEST', 'Некорректный JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BankError(400, 'ERROR.INVALID_REQUEST', 'Некорректный JSON');
  return body as Record<string, unknown>;
};

/**
 * A local Raiffeisen SBP QR API over real HTTP (base URL `<url>/api`), built from the bank's published spec: it
 * demands the Bearer key on every call but register, checks fields as documented, keeps QRs and refunds in memory,
 * and sends signed notifications. Tests (or its control API, `/_fake/...`) make buyers pay, underpay, overpay or be
 * declined, QRs expire, notifications drop, repeat, wait or arrive out of order, and requests fail (5xx, 429,
 * hang, delay, reset). It records every API request with its headers and counts them by kind.
 */
export class RaiffeisenSbpFake {
  readonly ledger = new RequestLedger();
  readonly book: QrBook;
  readonly notifier: Notifier;
  /** What a new refund's status is: IN_PROGRESS until settled by {@link settleRefund}, or settled at once. */
  refundOutcome: RefundWord = 'IN_PROGRESS';
  private readonly server: FakeServer;
  private readonly bearer: Buffer;

  constructor(readonly options: RaiffeisenSbpFakeOptions) {
    this.book = new QrBook(options.sbpMerchantId, options.now ?? (() => new Date()));
    this.notifier = new Notifier(options.callbackUrl ?? null);
    this.bearer = Buffer.from(`Bearer ${options.secretKey}`);
    this.server = new FakeServer((req, res) => this.handle(req, res));
  }

  /** Starts listening on 127.0.0.1 (port 0: any free one); resolves with the fake's origin. */
  start(port = 0, host = '127.0.0.1'): Promise<string> {
    return this.server.listen(port, host);
  }

  stop(): Promise<void> {
    return this.server.close();
  }

  /** The base URL an adapter is configured with (`RAIFFEISEN_SBP_API_URL`). */
  get apiUrl(): string {
    return `${this.server.url}/api`;
  }

  get url(): string {
    return this.server.url;
  }

  // ---- what tests tell the fake ----

  /** The next `times` requests of `kind` (`*` for any) meet `fault`. */
  fail(kind: RaiffeisenRequestKind | '*', fault: Fault, times = 1): void {
    this.ledger.inject(kind, fault, times);
  }

  count(kind: RaiffeisenRequestKind): number {
    return this.ledger.count(kind);
  }

  get requests() {
    return this.ledger.requests;
  }

  set callbackMode(mode: CallbackMode) {
    this.notifier.mode = mode;
  }

  set callbackUrl(url: string | null) {
    this.notifier.url = url;
  }

  /** The QR registered for an order (attempt), or undefined. */
  qrOf(order: string): Qr | undefined {
    return [...this.book.qrs.values()].find((q) => q.order === order);
  }

  /** A buyer pays the QR (the whole amount unless told otherwise); resolves with the notifications delivered now. */
  async pay(qrId: string, options: PayOptions = {}): Promise<Delivery[]> {
    return this.settle(qrId, 'SUCCESS', options);
  }

  /** A buyer pays `byKopecks` less than asked (a SUCCESS for less: what the platform calls underpaid). */
  async underpay(qrId: string, byKopecks = 100, options: DeliveryOptions = {}): Promise<Delivery[]> {
    const asked = this.book.find(qrId).amountKopecks;
    return this.pay(qrId, { ...options, amountKopecks: Math.max(1, asked - byKopecks) });
  }

  async overpay(qrId: string, byKopecks = 100, options: DeliveryOptions = {}): Promise<Delivery[]> {
    return this.pay(qrId, { ...options, amountKopecks: this.book.find(qrId).amountKopecks + byKopecks });
  }

  /** The buyer's bank declines the payment: a DECLINED notification, and the QR stays unpaid. */
  async decline(qrId: string, options: DeliveryOptions = {}): Promise<Delivery[]> {
    return this.settle(qrId, 'DECLINED', options);
  }

  /** The QR's lifetime ends (the bank sends nothing). */
  expire(qrId: string): void {
    this.book.expire(qrId);
  }

  /** Sends the QR's last notification again, as the bank's retries do. */
  async redeliver(qrId: string, options: DeliveryOptions = {}): Promise<Delivery[]> {
    return this.notifier.notify(notificationOf(this.book.find(qrId), this.options.sbpMerchantId, this.options.secretKey), options);
  }

  /** Delivers held notifications, in order or reversed. */
  releaseCallbacks(order: 'fifo' | 'reverse' = 'fifo'): Promise<Delivery[]> {
    return this.notifier.release(order);
  }

  settleRefund(refundId: string, status: 'COMPLETED' | 'DECLINED'): void {
    this.book.findRefund(refundId).status = status;
  }

  /** Back to how it started: no QR, refund, request, fault or held notification, the configured callback URL. */
  reset(): void {
    this.book.qrs.clear();
    this.book.refunds.clear();
    this.ledger.clear();
    this.notifier.held.length = 0;
    this.notifier.deliveries.length = 0;
    this.notifier.mode = 'deliver';
    this.notifier.url = this.options.callbackUrl ?? null;
    this.refundOutcome = 'IN_PROGRESS';
  }

  private async settle(qrId: string, status: PaymentWord, options: PayOptions): Promise<Delivery[]> {
    const kopecks = options.amountKopecks ?? this.book.find(qrId).amountKopecks;
    const qr = this.book.pay(qrId, status, kopecks, options.amountText ?? amountTextOf(kopecks));
    return this.notifier.notify(notificationOf(qr, this.options.sbpMerchantId, this.options.secretKey), options);
  }

  // ---- the API ----

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = performance.now();
    const url = req.url ?? '/';
    const path = url.split('?')[0] ?? '/';
    const body = await readBody(req);
    if (path.startsWith('/_fake/')) {
      sendJson(res, await controlRoute(this, req.method ?? 'GET', path, body));
      return;
    }
    const route = ROUTES.find((r) => r.method === req.method && r.pattern.test(path));
    const kind = route?.kind ?? 'unknown';
    const recorded: RecordedRequest = { kind, method: req.method ?? '', url, headers: req.headers, body };
    this.ledger.record(recorded);
    const fault = this.ledger.takeFault(kind);
    const work = () => this.answer(kind, route ? decodeURIComponent(route.pattern.exec(path)?.[1] ?? '') : '', req, body);
    const send = (answer: JsonAnswer): void => {
      recorded.handledMs = sendTimedJson(res, answer, arrivedAt);
    };
    if (!fault) {
      send(work());
      return;
    }
    switch (fault.type) {
      case 'reset':
        req.socket.destroy();
        return;
      case 'hang':
        // Never answered: the client's deadline or abort ends it (or stop() does).
        if (fault.processed) work();
        return;
      case 'delay':
        await new Promise((r) => setTimeout(r, fault.ms));
        send(work());
        return;
      case 'status':
        if (fault.processed) work();
        if (fault.status === 429) res.setHeader('Retry-After', '1');
        send({ status: fault.status, body: { code: 'ERROR.INTERNAL', message: `fake fault ${fault.status}` } });
    }
  }

  private answer(kind: RaiffeisenRequestKind, id: string, req: IncomingMessage, text: string): JsonAnswer {
    try {
      if (kind === 'unknown') throw new BankError(404, 'ERROR.NOT_FOUND', 'Метод не найден');
      // Register is documented without authorization; every other call needs the Bearer key.
      if (kind !== 'register') this.authorize(req.headers.authorization);
      if (req.method === 'POST' && !/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
        throw new BankError(400, 'ERROR.INVALID_REQUEST', 'Content-Type должен быть application/json');
      }
      return this.operation(kind, id, text);
    } catch (e) {
      if (e instanceof BankError) return { status: e.httpStatus, body: e.body };
      throw e;
    }
  }

  private authorize(header: string | undefined): void {
    const given = Buffer.from(header ?? '');
    if (given.length !== this.bearer.length || !timingSafeEqual(given, this.bearer)) {
      // Undocumented: the bank's answer to a bad key (verify with a live account).
      throw new BankError(401, 'ERROR.UNAUTHORIZED', 'Неверный ключ авторизации');
    }
  }

  private operation(kind: RaiffeisenRequestKind, id: string, text: string): JsonAnswer {
    switch (kind) {
      case 'register': {
        const qr = this.book.register(objectOf(text));
        const base = this.apiUrl;
        return {
          status: 200,
          body: {
            code: 'SUCCESS',
            qrId: qr.qrId,
            payload: `https://qr.nspk.ru/${qr.qrId}?type=02&bank=100000000007&sum=${qr.amountKopecks}&cur=RUB&crc=AB75`,
            qrUrl: `${base}/sbp/v1/qr/${qr.qrId}/image`,
          },
        };
      }
      case 'qr_info': {
        const qr = this.book.find(id);
        const payload = `https://qr.nspk.ru/${qr.qrId}?type=02&bank=100000000007&sum=${qr.amountKopecks}&cur=RUB&crc=AB75`;
        return {
          status: 200,
          body: {
            qrId: qr.qrId,
            qrStatus: qr.status,
            qrExpirationDate: qr.qrExpirationDate,
            payload,
            qrUrl: `${this.apiUrl}/sbp/v1/qr/${qr.qrId}/image`,
          },
        };
      }
      case 'cancel':
        this.book.cancel(id);
        return { status: 200, body: { code: 'SUCCESS' } };
      case 'payment_info':
        return this.paymentInfo(id);
      case 'refund': {
        const refund = this.book.refund(objectOf(text), this.refundOutcome);
        return { status: 200, text: `{"code":"SUCCESS","amount":${refund.amountText},"refundStatus":"${refund.status}"}` };
      }
      case 'refund_info': {
        const refund = this.book.findRefund(id);
        return { status: 200, text: `{"code":"SUCCESS","amount":${refund.amountText},"refundStatus":"${refund.status}"}` };
      }
      case 'callback_settings': {
        const url = objectOf(text).callbackUrl;
        if (typeof url !== 'string' || url === '') throw new BankError(400, 'ERROR.INVALID_REQUEST', 'Не передан обязательный параметр');
        this.notifier.url = url;
        return { status: 200, body: { callbackUrl: url } };
      }
      case 'unknown':
        throw new BankError(404, 'ERROR.NOT_FOUND', 'Метод не найден');
    }
  }

  private paymentInfo(qrId: string): JsonAnswer {
    const qr = this.book.find(qrId);
    const payment = qr.payment;
    if (!payment) {
      if (this.options.unpaidPaymentInfo !== 'no_info') throw new BankError(404, 'ERROR.NOT_FOUND', 'QR не был оплачен');
      return {
        status: 200,
        text: JSON.stringify({
          code: 'SUCCESS',
          paymentStatus: 'NO_INFO',
          qrId: qr.qrId,
          order: qr.order,
          amount: Number(qr.amountText),
          currency: 'RUB',
        }),
      };
    }
    const s = (v: string | null) => JSON.stringify(v);
    return {
      status: 200,
      text:
        `{"additionalInfo":${s(qr.additionalInfo)},"paymentPurpose":${s(qr.paymentDetails)},"amount":${payment.amountText},"code":"SUCCESS",` +
        `"createDate":${s(qr.createDate)},"currency":"RUB","merchantId":${BANK_MERCHANT_ID},"order":${s(qr.order)},"paymentStatus":${s(payment.status)},` +
        `"qrId":${s(qr.qrId)},"sbpMerchantId":${s(this.options.sbpMerchantId)},"transactionDate":${s(payment.transactionDate)},` +
        `"transactionId":${payment.transactionId},"qrExpirationDate":${s(qr.qrExpirationDate)}}`,
    };
  }
}
