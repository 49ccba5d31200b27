import type { Balance, BalanceTransaction, BalanceTransactionPage, BalanceTransactionType, Mode } from '@pl/contracts';
import { formatMoscow, formatMoscowOrNull } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import { encodeCursor, type LinkCursor } from './cursor';

/** A shop's balance in one mode, in kopecks. */
export interface BalanceRecord {
  shopId: number;
  livemode: boolean;
  /** All the shop holds (its ledger account `available`). */
  balance: number;
  /** What a payout may take: the balance less the credits still within the hold, never below 0. */
  available: number;
  refundReserve: number;
  /** When either account last moved; null before the first movement. */
  updatedAt: Date | null;
}

/** One row of the shop's statement (a ledger transaction that moved its `available`). */
export interface BalanceTransactionRecord {
  id: string;
  shopId: number;
  type: BalanceTransactionType;
  amount: number;
  fee: number;
  net: number;
  balanceAfter: number;
  paymentLinkId: string | null;
  refundId: string | null;
  payoutId: string | null;
  createdAt: Date;
  createdAtMicros: bigint;
}

export interface StatementQuery {
  merchantId: string;
  mode: Mode;
  /** One shop of the merchant, or all of them. */
  shopId: number | null;
  type: BalanceTransactionType | null;
  /** Start strictly after this position in (created_at desc, id desc) order. */
  after: LinkCursor | null;
  limit: number;
}

/** The ledger as the merchant reads it; it is written only by the posting function, inside each money move. */
export interface LedgerStore {
  balance(shopId: number, mode: Mode): Promise<BalanceRecord>;
  statement(query: StatementQuery): Promise<BalanceTransactionRecord[]>;
}

export const toBalance = (b: BalanceRecord): Balance => ({
  shop_id: b.shopId,
  currency: 'RUB',
  livemode: b.livemode,
  balance: formatKopecks(b.balance),
  available: formatKopecks(b.available),
  pending: formatKopecks(b.balance - b.available),
  refund_reserve: formatKopecks(b.refundReserve),
  updated_at: formatMoscowOrNull(b.updatedAt),
});

const toBalanceTransaction = (t: BalanceTransactionRecord): BalanceTransaction => ({
  id: t.id,
  shop_id: t.shopId,
  type: t.type,
  amount: formatKopecks(t.amount),
  fee: formatKopecks(t.fee),
  net: formatKopecks(t.net),
  balance_after: formatKopecks(t.balanceAfter),
  payment_link_id: t.paymentLinkId,
  refund_id: t.refundId,
  payout_id: t.payoutId,
  created_at: formatMoscow(t.createdAt),
});

/** A page of `limit` rows from `limit + 1` read: the extra one only says that another page exists. */
export function toBalanceTransactionPage(rows: BalanceTransactionRecord[], limit: number): BalanceTransactionPage {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const hasMore = rows.length > limit && last !== undefined;
  return {
    balance_transactions: items.map(toBalanceTransaction),
    has_more: hasMore,
    next_cursor: hasMore ? encodeCursor({ createdAtMicros: last.createdAtMicros, id: last.id }) : null,
  };
}
