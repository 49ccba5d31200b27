import { createHmac } from 'node:crypto';
import type { Qr } from './qr-book';

/** The header the bank signs notifications in. */
export const SIGNATURE_HEADER = 'X-Api-Signature-SHA256';

/** The bank's own merchant number of the platform (`merchantId` in notifications), fixed in the fake. */
export const BANK_MERCHANT_ID = 1780672001;

export interface Notification {
  readonly qrId: string;
  /** The body exactly as sent (the amount written as the bank wrote it). */
  readonly body: string;
  readonly signature: string;
}

/** What became of one delivery: the receiver's HTTP status, or null when it could not be reached. */
export interface Delivery {
  readonly qrId: string;
  readonly status: number | null;
  readonly body: string;
}

/** `deliver` sends at once; `drop` loses every notification; `hold` keeps them until {@link Notifier.release}. */
export type CallbackMode = 'deliver' | 'drop' | 'hold';

export interface DeliveryOptions {
  /** Sends the same notification this many more times (the bank retries until it gets 200). */
  readonly repeat?: number;
  /** Waits this long before the first delivery. */
  readonly delayMs?: number;
}

/**
 * The notification of a QR's payment, written member by member so the amount keeps the text the bank would write,
 * and signed by the documented rule: hex HMAC-SHA256, keyed by the secret key, of
 * `amount|sbpMerchantId|order|paymentStatus|transactionDate`.
 */
export function notificationOf(qr: Qr, sbpMerchantId: string, secretKey: string): Notification {
  const payment = qr.payment;
  if (!payment) throw new Error(`QR ${qr.qrId} has no payment to notify`);
  const s = (v: string | null) => JSON.stringify(v);
  const body =
    `{"transactionId":${payment.transactionId},"qrId":${s(qr.qrId)},"sbpMerchantId":${s(sbpMerchantId)},"merchantId":${BANK_MERCHANT_ID},` +
    `"amount":${payment.amountText},"currency":"RUB","transactionDate":${s(payment.transactionDate)},"paymentStatus":${s(payment.status)},` +
    `"additionalInfo":${s(qr.additionalInfo)},"order":${s(qr.order)},"createDate":${s(qr.createDate)}}`;
  const signed = [payment.amountText, sbpMerchantId, qr.order, payment.status, payment.transactionDate].join('|');
  return { qrId: qr.qrId, body, signature: createHmac('sha256', secretKey).update(signed, 'utf8').digest('hex') };
}

const DELIVERY_TIMEOUT_MS = 10_000;

/** Sends notifications to the configured callback URL, or drops or holds them as told. */
export class Notifier {
  mode: CallbackMode = 'deliver';
  url: string | null;
  readonly held: Notification[] = [];
  readonly deliveries: Delivery[] = [];

  constructor(url: string | null) {
    this.url = url;
  }

  /** Sends (or drops, or holds) one notification; resolves with the deliveries made now. */
  async notify(notification: Notification, options: DeliveryOptions = {}): Promise<Delivery[]> {
    if (this.mode === 'drop') return [];
    const copies = 1 + (options.repeat ?? 0);
    if (this.mode === 'hold') {
      for (let i = 0; i < copies; i++) this.held.push(notification);
      return [];
    }
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    const out: Delivery[] = [];
    for (let i = 0; i < copies; i++) out.push(await this.deliver(notification));
    return out;
  }

  /** Delivers what was held, in the order it was made or reversed (a later status arriving first). */
  async release(order: 'fifo' | 'reverse' = 'fifo'): Promise<Delivery[]> {
    const batch = this.held.splice(0, this.held.length);
    if (order === 'reverse') batch.reverse();
    const out: Delivery[] = [];
    for (const n of batch) out.push(await this.deliver(n));
    return out;
  }

  private async deliver(notification: Notification): Promise<Delivery> {
    let status: number | null = null;
    if (this.url) {
      try {
        const res = await fetch(this.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', [SIGNATURE_HEADER]: notification.signature },
          body: notification.body,
          signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        });
        await res.arrayBuffer();
        status = res.status;
      } catch {
        status = null;
      }
    }
    const delivery = { qrId: notification.qrId, status, body: notification.body };
    this.deliveries.push(delivery);
    return delivery;
  }
}
