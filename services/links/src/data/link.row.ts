import type { FailureReason, LinkStatus } from '@pl/contracts';
import type { FeePayer } from '@pl/money';
import type { LinkRecord } from '../domain/link';
import type { ListedLink } from '../domain/ports';

/** pg hands bigint back as text; kopeck and shop id values stay far below 2^53. */
export interface LinkRow {
  id: string;
  merchant_id: string;
  shop_id: string;
  livemode: boolean;
  order_id: string | null;
  description: string | null;
  return_url: string | null;
  amount: string;
  fee_bps: number;
  fee_percent_bp: number;
  crypto_bps: number;
  sbp_bps: number;
  fee_payer: FeePayer;
  payer_amount: string;
  merchant_credit: string;
  platform_revenue: string;
  status: LinkStatus;
  failure_reason: FailureReason | null;
  /** Null only in an Idempotency-Key's answer kept before refunds existed. */
  amount_refunded: string | null;
  gateway_provider: string | null;
  gateway_payment_id: string | null;
  to_currency: string | null;
  network: string | null;
  deposit_address: string | null;
  payer_currency: string | null;
  payer_crypto_amount: string | null;
  qr: string | null;
  expires_at: Date;
  paid_at: Date | null;
  created_at: Date;
  created_at_us: string;
  updated_at: Date;
}

// extract(epoch) is numeric since Postgres 14, so the microseconds survive exactly.
export const COLUMNS = `id, merchant_id, shop_id, livemode, order_id, description, return_url, amount, fee_bps, fee_percent_bp, crypto_bps, sbp_bps,
  fee_payer, payer_amount, merchant_credit, platform_revenue, status, failure_reason, amount_refunded, gateway_provider, gateway_payment_id,
  to_currency, network, deposit_address, payer_currency, payer_crypto_amount, qr, expires_at, paid_at, created_at,
  (extract(epoch FROM created_at) * 1000000)::bigint AS created_at_us, updated_at`;

/** A timestamptz from exact epoch microseconds (interval × float8 is exact below 2^53 µs, about 285 years). */
export const FROM_MICROS = (param: string): string => `(timestamptz 'epoch' + ${param}::bigint * interval '1 microsecond')`;

export const toRecord = (r: LinkRow): LinkRecord => ({
  id: r.id,
  merchantId: r.merchant_id,
  shopId: Number(r.shop_id),
  livemode: r.livemode,
  orderId: r.order_id,
  description: r.description,
  returnUrl: r.return_url,
  currency: 'RUB',
  amount: Number(r.amount),
  feeBps: r.fee_bps,
  feePercentBp: r.fee_percent_bp,
  cryptoBps: r.crypto_bps,
  sbpBps: r.sbp_bps,
  feePayer: r.fee_payer,
  payerAmount: Number(r.payer_amount),
  merchantCredit: Number(r.merchant_credit),
  platformRevenue: Number(r.platform_revenue),
  status: r.status,
  failureReason: r.failure_reason,
  amountRefunded: Number(r.amount_refunded ?? 0),
  gatewayProvider: r.gateway_provider,
  gatewayPaymentId: r.gateway_payment_id,
  toCurrency: r.to_currency,
  network: r.network,
  depositAddress: r.deposit_address,
  payerCurrency: r.payer_currency,
  payerCryptoAmount: r.payer_crypto_amount,
  qr: r.qr,
  expiresAt: r.expires_at,
  paidAt: r.paid_at,
  createdAt: r.created_at,
  createdAtMicros: BigInt(r.created_at_us),
  updatedAt: r.updated_at,
});

/** A list page's row: only what the list decides on is parsed; the link itself is already JSON (`payment_link_json`). */
export interface ListedRow {
  id: string;
  status: LinkStatus;
  /** Whole milliseconds, as a Date holds them. */
  expires_at_ms: number;
  created_at_us: string;
  json: string;
}

export const toListedLink = (r: ListedRow): ListedLink => ({
  id: r.id,
  status: r.status,
  expiresAt: new Date(r.expires_at_ms),
  createdAtMicros: BigInt(r.created_at_us),
  json: r.json,
});
