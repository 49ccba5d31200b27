import { randomBytes, randomUUID } from 'node:crypto';

/**
 * The fake's invoices, built from the provider's published API (docs/providers.md): what `POST /v1/payment` creates, what
 * `payment/info` shows and what callbacks carry. Coin amounts are exact decimals (bigint units), as Heleket writes them.
 */

export type HeleketStatus =
  | 'check'
  | 'process'
  | 'confirm_check'
  | 'wrong_amount_waiting'
  | 'paid'
  | 'paid_over'
  | 'wrong_amount'
  | 'cancel'
  | 'fail'
  | 'system_fail'
  | 'locked'
  | 'refund_process'
  | 'refund_paid'
  | 'refund_fail';

/** Final statuses (reference 1.7): the invoice can no longer be paid. */
const FINAL: ReadonlySet<HeleketStatus> = new Set([
  'paid',
  'paid_over',
  'wrong_amount',
  'cancel',
  'fail',
  'system_fail',
  'locked',
  'refund_paid',
  'refund_fail',
]);

export interface Coin {
  readonly decimals: number;
  /** What one coin costs in kopecks: the fake's fixed rate. */
  readonly rateKopecks: bigint;
}

export const COINS: Readonly<Record<string, Coin>> = {
  USDT: { decimals: 6, rateKopecks: 9_000n },
  BTC: { decimals: 8, rateKopecks: 900_000_000n },
  ETH: { decimals: 8, rateKopecks: 30_000_000n },
  TON: { decimals: 6, rateKopecks: 50_000n },
};

export interface Service {
  network: string;
  currency: string;
  is_available: boolean;
  is_enabled: boolean;
  limit: { min_amount: string; max_amount: string };
  commission: { fee_amount: string; percent: string };
}

/** The networks the platform offers, all available, with limits in the coin. */
export function defaultServices(): Service[] {
  const service = (currency: string, network: string, min: string, max: string): Service => ({
    network,
    currency,
    is_available: true,
    is_enabled: true,
    limit: { min_amount: min, max_amount: max },
    commission: { fee_amount: '0.00', percent: '1.0' },
  });
  return [
    service('USDT', 'tron', '1.00000000', '1000000.00000000'),
    service('USDT', 'eth', '10.00000000', '1000000.00000000'),
    service('USDT', 'ton', '1.00000000', '1000000.00000000'),
    service('BTC', 'btc', '0.00010000', '100.00000000'),
    service('ETH', 'eth', '0.00100000', '1000.00000000'),
    service('TON', 'ton', '0.10000000', '100000.00000000'),
    service('LTC', 'ltc', '0.01000000', '10000.00000000'),
  ];
}

export interface Invoice {
  readonly uuid: string;
  readonly orderId: string;
  /** The invoice amount in RUB as asked (`"1259.19"`). */
  readonly amount: string;
  readonly currency: string;
  readonly payerCurrency: string;
  readonly network: string;
  readonly payerAmount: string;
  readonly address: string;
  readonly urlCallback: string | null;
  readonly additionalData: string | null;
  readonly expiredAt: number;
  readonly createdAt: string;
  status: HeleketStatus;
  paymentAmount: string | null;
  txid: string | null;
  updatedAt: string;
}

export function toUnits(text: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
}

function fromUnits(units: bigint, decimals: number): string {
  const s = units.toString().padStart(decimals + 1, '0');
  return `${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
}

/** The coin amount of `amountRub` at the fake's rate, rounded up to the coin's last decimal. */
export function coinAmount(amountRub: string, coin: Coin): string {
  const kopecks = toUnits(amountRub, 2);
  const scale = 10n ** BigInt(coin.decimals);
  return fromUnits((kopecks * scale + coin.rateKopecks - 1n) / coin.rateKopecks, coin.decimals);
}

function fakeAddress(network: string): string {
  const hex = randomBytes(20).toString('hex');
  switch (network) {
    case 'tron':
      return `T${randomBytes(24)
        .toString('base64url')
        .replace(/[-_0OIl]/g, 'x')
        .slice(0, 33)}`;
    case 'btc':
      return `bc1q${hex.slice(0, 38)}`;
    case 'ton':
      return `UQ${randomBytes(35).toString('base64url').slice(0, 46)}`;
    default:
      return `0x${hex}`;
  }
}

const nowText = (): string => new Date().toISOString().replace('T', ' ').slice(0, 19);

export function newInvoice(fields: {
  orderId: string;
  amount: string;
  currency: string;
  payerCurrency: string;
  network: string;
  lifetimeS: number;
  urlCallback: string | null;
  additionalData: string | null;
}): Invoice {
  const coin = COINS[fields.payerCurrency];
  if (coin === undefined) throw new Error(`no rate for ${fields.payerCurrency}`);
  const at = nowText();
  return {
    uuid: randomUUID(),
    orderId: fields.orderId,
    amount: fields.amount,
    currency: fields.currency,
    payerCurrency: fields.payerCurrency,
    network: fields.network,
    payerAmount: coinAmount(fields.amount, coin),
    address: fakeAddress(fields.network),
    urlCallback: fields.urlCallback,
    additionalData: fields.additionalData,
    expiredAt: Math.floor(Date.now() / 1000) + fields.lifetimeS,
    createdAt: at,
    status: 'check',
    paymentAmount: null,
    txid: null,
    updatedAt: at,
  };
}

const isFinal = (status: HeleketStatus): boolean => FINAL.has(status);

/** The invoice object of create and `payment/info` answers (reference 1.5). */
export function invoiceObject(inv: Invoice): Record<string, unknown> {
  return {
    uuid: inv.uuid,
    order_id: inv.orderId,
    amount: inv.amount,
    payment_amount: inv.paymentAmount,
    payer_amount: inv.payerAmount,
    discount_percent: null,
    discount: '0.00000000',
    payer_currency: inv.payerCurrency,
    currency: inv.currency,
    merchant_amount: null,
    network: inv.network,
    address: inv.address,
    from: null,
    txid: inv.txid,
    payment_status: inv.status,
    url: `https://pay.heleket.com/pay/${inv.uuid}`,
    expired_at: inv.expiredAt,
    status: inv.status,
    is_final: isFinal(inv.status),
    additional_data: inv.additionalData,
    created_at: inv.createdAt,
    updated_at: inv.updatedAt,
  };
}

/** The payment webhook's fields (reference 1.6), without `sign`. */
export function callbackObject(inv: Invoice): Record<string, unknown> {
  return {
    type: 'payment',
    uuid: inv.uuid,
    order_id: inv.orderId,
    amount: inv.amount,
    payment_amount: inv.paymentAmount,
    payment_amount_usd: inv.paymentAmount,
    merchant_amount: inv.paymentAmount,
    commission: '0.00000000',
    is_final: isFinal(inv.status),
    status: inv.status,
    from: inv.paymentAmount === null ? null : 'THgEWubVc8tPKXLJ4VZ5zbiiAK7AgqSeGH',
    wallet_address_uuid: null,
    network: inv.network,
    currency: inv.currency,
    payer_currency: inv.payerCurrency,
    additional_data: inv.additionalData,
    txid: inv.txid,
  };
}

/** Moves an invoice to `status`; `paymentAmount` is what arrived in the coin (null keeps what is there). */
export function moveInvoice(inv: Invoice, status: HeleketStatus, paymentAmount: string | null): void {
  inv.status = status;
  if (paymentAmount !== null) {
    inv.paymentAmount = paymentAmount;
    inv.txid ??= randomBytes(32).toString('hex');
  }
  inv.updatedAt = nowText();
}
