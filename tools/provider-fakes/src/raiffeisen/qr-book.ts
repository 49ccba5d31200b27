import { randomBytes } from 'node:crypto';

/**
 * The fake bank's books: registered QRs, their payments and refunds, and the rules the bank documents for them
 * (Raiffeisen-DGTL/ecom-API sbp.yaml; the provider's published API (docs/providers.md)). Errors are the documented `{ code, message }`.
 */

type QrStatus = 'NEW' | 'IN_PROGRESS' | 'PAID' | 'CANCELLED' | 'EXPIRED';
export type PaymentWord = 'SUCCESS' | 'DECLINED' | 'IN_PROGRESS';
export type RefundWord = 'IN_PROGRESS' | 'COMPLETED' | 'DECLINED';

interface QrPayment {
  status: PaymentWord;
  /** What was paid, as the bank writes it in the notification and payment-info (`100.50` when told to). */
  amountText: string;
  amountKopecks: number;
  transactionId: number;
  transactionDate: string;
}

export interface Qr {
  readonly qrId: string;
  readonly order: string;
  readonly amountKopecks: number;
  readonly amountText: string;
  readonly expiresAt: Date;
  readonly qrExpirationDate: string;
  readonly paymentDetails: string | null;
  readonly additionalInfo: string | null;
  readonly createDate: string;
  status: QrStatus;
  payment: QrPayment | null;
}

export interface Refund {
  readonly refundId: string;
  readonly order: string;
  readonly amountKopecks: number;
  readonly amountText: string;
  status: RefundWord;
}

export class BankError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
  get body(): { code: string; message: string } {
    return { code: this.code, message: this.message };
  }
}

const invalid = (message: string) => new BankError(400, 'ERROR.INVALID_REQUEST', message);

/** `2020-01-15T16:01:49.043924+03:00`: Moscow time with microseconds, as the bank writes transaction dates. */
function bankTime(at: Date): string {
  const shifted = new Date(at.getTime() + 3 * 60 * 60 * 1000);
  return `${shifted.toISOString().slice(0, 23)}000+03:00`;
}

/** The bank's amount text of kopecks: `1259.19`, `100.5`, `150` (what a Java BigDecimal of roubles prints, stripped). */
export function amountTextOf(kopecks: number): string {
  const roubles = Math.floor(kopecks / 100);
  const cents = kopecks % 100;
  return cents === 0 ? String(roubles) : `${roubles}.${String(cents).padStart(2, '0').replace(/0$/, '')}`;
}

/** Kopecks of a JSON number of roubles with at most two decimals, or null. */
function kopecksOf(amount: unknown): number | null {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) return null;
  const kopecks = Math.round(amount * 100);
  return Math.abs(amount * 100 - kopecks) < 1e-6 && Number.isSafeInteger(kopecks) ? kopecks : null;
}

const ORDER = /^[A-Za-z0-9_.-]{1,40}$/;
const OFFSET_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?([+-]\d{2}:\d{2}|Z)$/;

const optionalText = (body: Record<string, unknown>, name: string, max: number): string | null => {
  const value = body[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max) throw invalid(`Параметр ${name} должен быть строкой не длиннее ${max} символов`);
  return value;
};

export class QrBook {
  readonly qrs = new Map<string, Qr>();
  readonly refunds = new Map<string, Refund>();
  private nextTransactionId = 17998;

  constructor(
    private readonly sbpMerchantId: string,
    private readonly now: () => Date,
  ) {}

  /** `POST /sbp/v1/qr/register` for a dynamic QR, with the checks the bank documents. */
  register(body: Record<string, unknown>): Qr {
    const merchant = body.sbpMerchantId;
    if (merchant === undefined || merchant === null || merchant === '')
      throw new BankError(400, 'ERROR.SBP_MERCHANT_ID_IS_MISSING', 'SbpMerchantId партнера не указан');
    if (typeof merchant !== 'string' || merchant.length > 12 || merchant !== this.sbpMerchantId) {
      throw new BankError(
        400,
        'ERROR.MERCHANT_NOT_REGISTERED',
        `Партнер с ID ${typeof merchant === 'string' ? merchant.slice(0, 12) : ''} не зарегистрирован`,
      );
    }
    if (body.qrType !== 'QRDynamic') throw invalid('Фейк поддерживает только qrType QRDynamic');
    const order = body.order;
    if (typeof order !== 'string' || order === '') throw invalid('Не передан обязательный параметр');
    if (!ORDER.test(order)) throw new BankError(400, 'ERROR.INVALID_ORDER', 'В номере заказа поддерживаются A-z09_-.');
    if (body.amount === undefined || body.amount === null)
      throw new BankError(400, 'ERROR.DYNAMIC_QR_WITHOUT_AMOUNT', 'Не передана сумма для динамического QR-кода');
    const amountKopecks = kopecksOf(body.amount);
    if (amountKopecks === null) throw invalid('Передана некорректная сумма платежа');
    if (body.currency !== 'RUB') throw invalid('Не передан обязательный параметр');
    const expiration = body.qrExpirationDate;
    let expiresAt = new Date(this.now().getTime() + 3 * 24 * 60 * 60 * 1000);
    if (expiration !== undefined && expiration !== null) {
      if (typeof expiration !== 'string' || !OFFSET_TIME.test(expiration) || Date.parse(expiration) <= this.now().getTime()) {
        throw new BankError(400, 'ERROR.QR_EXPIRATION_DATE_NOT_VALID', 'Неверная дата истечения QR-кода');
      }
      expiresAt = new Date(Date.parse(expiration));
    }
    const paymentDetails = optionalText(body, 'paymentDetails', 185);
    const additionalInfo = optionalText(body, 'additionalInfo', 140);
    for (const qr of this.qrs.values()) {
      if (qr.order === order && qr.payment?.status === 'SUCCESS') {
        throw new BankError(
          400,
          'ERROR.ORDER_NUMBER_ALREADY_REGISTERED',
          `QR-код с номером заказа ${order}, партнера ${this.sbpMerchantId} и успешными платежами уже зарегистрирован`,
        );
      }
    }
    const qr: Qr = {
      qrId: `AD${randomBytes(15).toString('hex').toUpperCase()}`,
      order,
      amountKopecks,
      amountText: amountTextOf(amountKopecks),
      expiresAt,
      qrExpirationDate: typeof expiration === 'string' ? expiration : bankTime(expiresAt).replace(/\.\d+/, ''),
      paymentDetails,
      additionalInfo,
      createDate: bankTime(this.now()),
      status: 'NEW',
      payment: null,
    };
    this.qrs.set(qr.qrId, qr);
    return qr;
  }

  /** The QR, its status brought up to date with the clock. */
  find(qrId: string): Qr {
    const qr = this.qrs.get(qrId);
    if (!qr) throw new BankError(404, 'ERROR.NOT_FOUND', 'QR-код не найден у данного партнера');
    if ((qr.status === 'NEW' || qr.status === 'IN_PROGRESS') && qr.expiresAt.getTime() <= this.now().getTime()) qr.status = 'EXPIRED';
    return qr;
  }

  cancel(qrId: string): void {
    const qr = this.find(qrId);
    if (qr.status === 'PAID') throw invalid('QR-код уже оплачен');
    if (qr.status === 'NEW' || qr.status === 'IN_PROGRESS') qr.status = 'CANCELLED';
  }

  /** Records a payment of the QR (what a buyer's bank does); refused for a QR no buyer can pay any more. */
  pay(qrId: string, status: PaymentWord, amountKopecks: number, amountText: string): Qr {
    const qr = this.find(qrId);
    if (qr.status === 'CANCELLED' || qr.status === 'EXPIRED' || qr.status === 'PAID')
      throw new Error(`QR ${qrId} is ${qr.status}: no buyer can pay it`);
    qr.payment = { status, amountText, amountKopecks, transactionId: this.nextTransactionId++, transactionDate: bankTime(this.now()) };
    qr.status = status === 'SUCCESS' ? 'PAID' : status === 'IN_PROGRESS' ? 'IN_PROGRESS' : qr.status;
    return qr;
  }

  expire(qrId: string): void {
    const qr = this.find(qrId);
    if (qr.status === 'NEW' || qr.status === 'IN_PROGRESS') qr.status = 'EXPIRED';
  }

  /** `POST /sbp/v1/refund`: of a paid dynamic QR by its order, at most what is left of the payment. */
  refund(body: Record<string, unknown>, outcome: RefundWord): Refund {
    const refundId = body.refundId;
    const order = body.order;
    if (typeof refundId !== 'string' || refundId === '' || refundId.length > 40) throw invalid('Не передан обязательный параметр');
    if (typeof order !== 'string' || order === '' || order.length > 40) throw invalid('Не передан обязательный параметр');
    optionalText(body, 'paymentDetails', 140);
    const amountKopecks = kopecksOf(body.amount);
    if (amountKopecks === null) throw invalid('Сумма возврата не может быть меньше 1 копейки');
    // Undocumented: a refundId used before is refused, so a client that repeats blindly learns nothing from it.
    if (this.refunds.has(refundId)) throw invalid(`Возврат с refundId ${refundId} уже существует`);
    const paid = [...this.qrs.values()].find((q) => q.order === order && q.payment?.status === 'SUCCESS');
    if (!paid?.payment) throw new BankError(404, 'ERROR.NOT_FOUND', `Платеж по заказу ${order} не найден`);
    const refunded = [...this.refunds.values()]
      .filter((r) => r.order === order && r.status !== 'DECLINED')
      .reduce((sum, r) => sum + r.amountKopecks, 0);
    if (refunded + amountKopecks > paid.payment.amountKopecks)
      throw new BankError(400, 'ERROR.REFUND_INSUFFICIENT_FUNDS', 'Сумма возврата больше суммы остатка по платежу');
    const refund: Refund = { refundId, order, amountKopecks, amountText: amountTextOf(amountKopecks), status: outcome };
    this.refunds.set(refundId, refund);
    return refund;
  }

  findRefund(refundId: string): Refund {
    const refund = this.refunds.get(refundId);
    if (!refund) throw new BankError(404, 'ERROR.REFUND_NOT_FOUND', `Возврат с refundId ${refundId} не найден`);
    return refund;
  }
}
