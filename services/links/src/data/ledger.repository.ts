import type { Db } from '@pl/db';
import type { BalanceTransactionType, LedgerVerification, Mode } from '@pl/contracts';
import { FROM_MICROS } from './link.row';
import type { BalanceRecord, BalanceTransactionRecord, LedgerStore, StatementQuery } from '../domain/ledger';

/**
 * The ledger posting of a paid link, for a statement whose CTE `rows` returns the settled payment_links rows:
 * clearing (the link's provider) −payer_amount, the shop's available +merchant_credit, revenue +platform_revenue.
 * It selects the new transaction's id as `ledger_transaction_id`; the caller must read that column in its final
 * SELECT, since Postgres runs a plain SELECT in a WITH only as far as the statement reads it.
 */
export const paidPostingSql = (rows: string): string =>
  `SELECT ledger_post('payment', id, NULL, NULL, payer_amount, platform_revenue, merchant_credit,
            jsonb_build_array(
              jsonb_build_object('account', 'clearing', 'provider', gateway_provider, 'amount', -payer_amount),
              jsonb_build_object('account', 'available', 'amount', merchant_credit),
              jsonb_build_object('account', 'revenue', 'amount', platform_revenue))) AS ledger_transaction_id
     FROM ${rows} WHERE status = 'paid'`;

const STATEMENT_TYPES = `('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed', 'payout', 'payout_returned')`;

interface AccountRow {
  kind: 'available' | 'refund_reserve';
  balance: string;
  updated_at: Date | null;
}

interface TransactionRow {
  id: string;
  shop_id: string;
  type: BalanceTransactionType;
  amount: string;
  fee: string;
  net: string;
  balance_after: string;
  payment_link_id: string | null;
  refund_id: string | null;
  payout_id: string | null;
  created_at: Date;
  created_at_us: string;
}

const toTransaction = (row: TransactionRow): BalanceTransactionRecord => ({
  id: row.id,
  shopId: Number(row.shop_id),
  type: row.type,
  amount: Number(row.amount),
  fee: Number(row.fee),
  net: Number(row.net),
  balanceAfter: Number(row.balance_after),
  paymentLinkId: row.payment_link_id,
  refundId: row.refund_id,
  payoutId: row.payout_id,
  createdAt: row.created_at,
  createdAtMicros: BigInt(row.created_at_us),
});

/** The shop's balance and statement, read from the links schema's ledger (written only by `ledger_post`). */
export class LedgerRepository implements LedgerStore {
  /** `holdHours`: PAYOUT_HOLD_HOURS, how long a credit stays pending (docs/payouts.md); none unless given. */
  constructor(
    private readonly db: Db,
    private readonly holdHours = 0,
  ) {}

  /**
   * The shop's two accounts of the mode: their stored running balances, never a sum over entries; `available` less
   * the credits of the hold (one index range of the last hours' credits).
   */
  async balance(shopId: number, mode: Mode): Promise<BalanceRecord> {
    const rows = await this.db.query<AccountRow>(
      `SELECT kind, balance, updated_at FROM ledger_accounts
        WHERE shop_id = $1 AND livemode = $2 AND kind IN ('available', 'refund_reserve') AND provider IS NULL`,
      [shopId, mode === 'live'],
    );
    const of = (kind: AccountRow['kind']) => rows.find((r) => r.kind === kind);
    const moved = rows.map((r) => r.updated_at).filter((d): d is Date => d !== null);
    const balance = Number(of('available')?.balance ?? 0);
    const held = await this.db.query<{ held: string }>(
      `SELECT coalesce(sum(net), 0) AS held FROM ledger_transactions
        WHERE shop_id = $1 AND livemode = $2 AND type IN ('payment', 'late_payment', 'unresolved_payment')
          AND created_at > now() - make_interval(secs => $3::float8)`,
      [shopId, mode === 'live', this.holdHours * 3600],
    );
    return {
      shopId,
      livemode: mode === 'live',
      balance,
      available: Math.min(balance, Math.max(0, balance - Number(held[0]?.held ?? 0))),
      refundReserve: Number(of('refund_reserve')?.balance ?? 0),
      updatedAt: moved.length ? new Date(Math.max(...moved.map((d) => d.getTime()))) : null,
    };
  }

  /** A statement page, newest first, by the merchant (all its shops) or by one shop. */
  async statement(query: StatementQuery): Promise<BalanceTransactionRecord[]> {
    const params: unknown[] = [query.mode === 'live'];
    const param = (value: unknown) => `$${params.push(value)}`;
    // The owner column first, as the partial statement indexes hold it.
    const conditions = [
      query.shopId !== null ? `shop_id = ${param(query.shopId)}` : `merchant_id = ${param(query.merchantId)}`,
      'livemode = $1',
      `type IN ${STATEMENT_TYPES}`,
    ];
    if (query.shopId !== null) conditions.push(`merchant_id = ${param(query.merchantId)}`);
    if (query.type !== null) conditions.push(`type = ${param(query.type)}`);
    if (query.after) {
      const at = param(query.after.createdAtMicros.toString());
      const id = param(query.after.id);
      conditions.push(`(created_at, id) < (${FROM_MICROS(at)}, ${id}::uuid)`);
    }
    const rows = await this.db.query<TransactionRow>(
      `SELECT id, shop_id, type, amount, fee, net, balance_after, payment_link_id, refund_id, payout_id, created_at,
              (extract(epoch FROM created_at) * 1000000)::bigint AS created_at_us
         FROM ledger_transactions
        WHERE ${conditions.join(' AND ')}
        ORDER BY created_at DESC, id DESC
        LIMIT ${param(query.limit)}`,
      params,
    );
    return rows.map(toTransaction);
  }

  /** `ledger:verify`: see {@link verifyLedger}. */
  verify(): Promise<LedgerVerification> {
    return verifyLedger(this.db);
  }
}

/**
 * The ledger checked from its entries alone (`ledger:verify`; the fault, soak and property tests end with it):
 * transactions whose entries do not sum to zero or are fewer than two, and shop accounts whose stored running
 * balance differs from the sum of their entries. Both must be 0; the database's triggers and CHECKs are meant
 * to make anything else impossible, and this is the proof that they did. One pass over the entries.
 */
export async function verifyLedger(db: Db): Promise<LedgerVerification> {
  const rows = await db.query<LedgerVerification>(
    `WITH by_transaction AS (
       SELECT transaction_id, count(*) AS entries, sum(amount) AS total FROM ledger_entries GROUP BY transaction_id
     ), by_account AS (
       SELECT account_id, sum(amount) AS total FROM ledger_entries GROUP BY account_id
     )
     SELECT (SELECT count(*) FROM ledger_transactions)::int AS transactions,
            (SELECT count(*) FROM ledger_transactions t LEFT JOIN by_transaction e ON e.transaction_id = t.id
              WHERE coalesce(e.entries, 0) < 2 OR e.total <> 0)::int AS unbalanced,
            (SELECT count(*) FROM ledger_accounts a LEFT JOIN by_account e ON e.account_id = a.id
              WHERE a.balance IS NOT NULL AND a.balance <> coalesce(e.total, 0))::int AS balances_mismatched`,
  );
  const [counts] = rows;
  if (!counts) throw new Error('ledger:verify read no counts');
  return counts;
}
