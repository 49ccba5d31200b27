import type { DeliveryOptions } from './notifications';

/** The fake's own vocabulary, apart from the fake so its control API can name it without importing the fake. */

export type RaiffeisenRequestKind = 'register' | 'qr_info' | 'cancel' | 'payment_info' | 'refund' | 'refund_info' | 'callback_settings' | 'unknown';

export interface PayOptions extends DeliveryOptions {
  /** What arrives, in kopecks; the QR's amount when absent. */
  readonly amountKopecks?: number;
  /** The amount's text in the notification and payment-info (`100.50`); the bank's shortest form when absent. */
  readonly amountText?: string;
}
