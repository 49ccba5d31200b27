import type { PoolClient } from 'pg';
import { PAYMENT_EVENTS_TOPIC, type PayoutDestinationSnapshot, type PayoutStatus } from '@pl/contracts';
import type { Db } from '@pl/db';
import { currentTraceparent } from '@pl/telemetry';
import type { OutboxEntry } from '../domain/link';
import type { NewPayout, PayoutCreation, PayoutListQuery, PayoutMove, PayoutMoveResult, PayoutRail, PayoutRecord, PayoutStore } from '../domain/payout';
import { isLinksOwnMode, type ModeReach } from '../domain/ports';
import { FROM_MICROS } from './link.row';
import { committedEntry, insertOutboxEntry } from './outbox.repository';

/** pg hands bigint back as text; kopecks and shop ids stay far below 2^53. */
interface PayoutRow {
  id: string;
  merchant_id: string;
  shop_id: string;
  livemode: boolean;
  amount: string;
  fee: string;
  status: PayoutStatus;
  description: string | null;
  destination_id: string;
  destination_type: PayoutDestinationSnapshot['type'];
  destination_masked: string;
  destination_details: PayoutDestinationSnapshot['details'];
  rail: PayoutRail;
  failure_reason: string | null;
  created_by: string | null;
  approved_by: string | null;
  canceled_by: string | null;
  created_at: Date;
  created_at_us: string;
  approved_at: Date | null;
  processing_at: Date | null;
  paid_at: Date | null;
  failed_at: Date | null;
  canceled_at: Date | null;
  updated_at: Date;
}

const COLUMNS = `id, merchant_id, shop_id, livemode, amount, fee, status, description, destination_id, destination_type,
  destination_masked, destination_details, rail, failure_reason, created_by, approved_by, canceled_by, created_at,
  (extract(epoch FROM created_at) * 1000000)::bigint AS created_at_us, approved_at, processing_at, paid_at, failed_at,
  canceled_at, updated_at`;

const toRecord = (r: PayoutRow): PayoutRecord => ({
  id: r.id,
  merchantId: r.merchant_id,
  shopId: Number(r.shop_id),
  livemode: r.livemode,
  amount: Number(r.amount),
  fee: Number(r.fee),
  status: r.status,
  description: r.description,
  destination: { id: r.destination_id, type: r.destination_type, masked: r.destination_masked, details: r.destination_details },
  rail: r.rail,
  failureReason: r.failure_reason,
  createdBy: r.created_by,
  approvedBy: r.approved_by,
  canceledBy: r.canceled_by,
  createdAt: r.created_at,
  createdAtMicros: BigInt(r.created_at_us),
  approvedAt: r.approved_at,
  processingAt: r.processing_at,
  paidAt: r.paid_at,
  failedAt: r.failed_at,
  canceledAt: r.canceled_at,
  updatedAt: r.updated_at,
});

/** A refusal found inside the transaction: thrown to roll it back (the key's record with it), then answered. */
class Refused extends Error {
  constructor(readonly outcome: Extract<PayoutCreation, { kind: 'insufficient_available' | 'daily_limit' }>) {
    super(outcome.kind);
  }
}

const sqlState = (e: unknown): unknown => (typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined);
const constraintOf = (e: unknown): unknown => (typeof e === 'object' && e !== null ? (e as { constraint?: unknown }).constraint : undefined);
const isKeyTaken = (e: unknown): boolean => sqlState(e) === '23505' && constraintOf(e) === 'idempotency_keys_pkey';
/** The ledger's CHECK on a shop's running balance: a refund took the money between our read and our posting (cannot, under the lock; kept as the last word). */
const isBalanceShort = (e: unknown): boolean => sqlState(e) === '23514' && constraintOf(e) === 'ledger_accounts_balance_check';

/** The credit types the hold applies to: money that arrived. A returned refund or payout was available before it left. */
const HELD_TYPES = `('payment', 'late_payment', 'unresolved_payment')`;

/**
 * The shop's available balance (docs/payouts.md, "Available and pending"): its balance less the credits posted within
 * the hold, never below zero nor above the balance. `lock` takes the balance's row lock first: a payout judges it and
 * posts against it with no other posting of the shop in between.
 */
export async function availableOf(
  client: Pick<PoolClient, 'query'>,
  shopId: number,
  livemode: boolean,
  holdHours: number,
  lock: boolean,
): Promise<{ balance: number; available: number }> {
  const { rows } = await client.query<{ balance: string; held: string }>(
    `WITH account AS (
       SELECT balance FROM ledger_accounts WHERE id = ledger_account_id($2, 'available', $1, NULL) ${lock ? 'FOR UPDATE' : ''}
     )
     SELECT (SELECT balance FROM account) AS balance,
            (SELECT coalesce(sum(net), 0) FROM ledger_transactions
              WHERE shop_id = $1 AND livemode = $2 AND type IN ${HELD_TYPES}
                AND created_at > now() - make_interval(secs => $3::float8)) AS held`,
    [shopId, livemode, holdHours * 3600],
  );
  const balance = Number(rows[0]?.balance ?? 0);
  const held = Number(rows[0]?.held ?? 0);
  return { balance, available: Math.min(balance, Math.max(0, balance - held)) };
}

type Leg = { account: 'available' | 'payouts_in_transit' | 'revenue' | 'clearing'; provider?: string; amount: number };

/** Payouts in the `links` schema, moved with their ledger postings and their events. */
export class PayoutRepository implements PayoutStore {
  constructor(
    private readonly db: Db,
    private readonly onEventWritten: (entry: OutboxEntry) => void = () => undefined,
    readonly eventsTopic: string = PAYMENT_EVENTS_TOPIC,
  ) {}

  /**
   * One transaction: the key's record first (a concurrent request with the key waits for this one, then answers its
   * payout), the account's payout lock (its 24 hours are judged with no other payout of it in between), the shop
   * balance's row lock (its available, likewise), the payout, its posting and `payout.created`.
   */
  async create(p: NewPayout, eventOf: (created: PayoutRecord) => OutboxEntry): Promise<PayoutCreation> {
    try {
      const result = await this.db.transaction(async (client) => {
        if (p.key) {
          await client.query(
            `INSERT INTO idempotency_keys (scope, key_sha256, fingerprint, link_id, response) VALUES ($1, $2, $3, NULL, 'null'::json)`,
            [p.key.scope, p.key.keySha256, p.key.fingerprint],
          );
        }
        await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('payouts:' || $1 || ':' || $2, 0))`, [p.merchantId, String(p.livemode)]);
        const { available } = await availableOf(client, p.shopId, p.livemode, p.holdHours, true);
        const total = p.amount + p.fee;
        if (total > available) throw new Refused({ kind: 'insufficient_available' });
        const { rows: day } = await client.query<{ spent: string }>(
          `SELECT coalesce(sum(amount), 0) AS spent FROM payouts
            WHERE merchant_id = $1 AND livemode = $2 AND created_at > now() - interval '24 hours'
              AND status NOT IN ('canceled', 'rejected', 'failed')`,
          [p.merchantId, p.livemode],
        );
        if (Number(day[0]?.spent ?? 0) + p.amount > p.dailyMaxKopecks) throw new Refused({ kind: 'daily_limit' });

        const { rows } = await client.query<PayoutRow>(
          `INSERT INTO payouts (id, merchant_id, shop_id, livemode, amount, fee, status, description, destination_id, destination_type,
                                destination_masked, destination_details, rail, created_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14)
           RETURNING ${COLUMNS}`,
          [
            p.id,
            p.merchantId,
            p.shopId,
            p.livemode,
            p.amount,
            p.fee,
            p.status,
            p.description,
            p.destination.id,
            p.destination.type,
            p.destination.masked,
            JSON.stringify(p.destination.details),
            p.rail,
            p.createdBy,
          ],
        );
        const row = rows[0];
        if (!row) throw new Error('payout insert returned no row');
        await post(client, 'payout', p.id, -p.amount, p.fee, -total, [
          { account: 'available', amount: -total },
          { account: 'payouts_in_transit', amount: total },
        ]);
        const created = toRecord(row);
        const entry = eventOf(created);
        await insertOutboxEntry(client, entry);
        if (p.key) {
          await client.query(
            `UPDATE idempotency_keys SET response = json_build_object('payout_id', $3::text)
              WHERE scope = $1 AND key_sha256 = $2 AND created_at > now() - idempotency_key_ttl()`,
            [p.key.scope, p.key.keySha256, p.id],
          );
        }
        return { created, entry: committedEntry(entry, currentTraceparent()) };
      });
      this.onEventWritten(result.entry);
      return { kind: 'created', payout: result.created };
    } catch (e) {
      if (e instanceof Refused) return e.outcome;
      if (isKeyTaken(e)) return { kind: 'key_taken' };
      if (isBalanceShort(e)) return { kind: 'insufficient_available' };
      throw e;
    }
  }

  /** One move under the payout's row lock: the state, its stamps, its posting and its event, or nothing at all. */
  async move(m: PayoutMove): Promise<PayoutMoveResult> {
    const result = await this.db.transaction(async (client) => {
      const { rows: found } = await client.query<PayoutRow>(`SELECT ${COLUMNS} FROM payouts WHERE id = $1 FOR UPDATE`, [m.id]);
      const before = found[0];
      if (!before || (m.merchantId !== null && before.merchant_id !== m.merchantId)) return { result: { kind: 'not_found' } as const, entry: null };
      if (before.status === m.to) return { result: { kind: 'unchanged', payout: toRecord(before) } as const, entry: null };
      if (!m.from.includes(before.status)) return { result: { kind: 'refused', payout: toRecord(before) } as const, entry: null };
      if (m.notByCreator && before.created_by !== null && before.created_by === m.by) {
        return { result: { kind: 'own_payout', payout: toRecord(before) } as const, entry: null };
      }
      const { rows } = await client.query<PayoutRow>(
        `UPDATE payouts SET status = $2, updated_at = clock_timestamp(),
                approved_by = CASE WHEN $2 = 'approved' THEN $3::uuid ELSE approved_by END,
                approved_at = CASE WHEN $2 = 'approved' THEN clock_timestamp() ELSE approved_at END,
                canceled_by = CASE WHEN $2 IN ('canceled', 'rejected') THEN $3::uuid ELSE canceled_by END,
                canceled_at = CASE WHEN $2 IN ('canceled', 'rejected') THEN clock_timestamp() ELSE canceled_at END,
                processing_at = CASE WHEN $2 = 'processing' THEN clock_timestamp() ELSE processing_at END,
                paid_at = CASE WHEN $2 = 'paid' THEN clock_timestamp() ELSE paid_at END,
                failed_at = CASE WHEN $2 = 'failed' THEN clock_timestamp() ELSE failed_at END,
                failure_reason = coalesce($4, failure_reason)
          WHERE id = $1 RETURNING ${COLUMNS}`,
        [m.id, m.to, m.by, m.failureReason],
      );
      const row = rows[0];
      if (!row) throw new Error('payout update returned no row');
      await postMove(client, before, m.to);
      const moved = toRecord(row);
      if (!m.eventOf) return { result: { kind: 'moved', payout: moved } as const, entry: null };
      const entry = m.eventOf(moved);
      await insertOutboxEntry(client, entry);
      return { result: { kind: 'moved', payout: moved } as const, entry: committedEntry(entry, currentTraceparent()) };
    });
    if (result.entry) this.onEventWritten(result.entry);
    return result.result;
  }

  async findById(id: string, reach: ModeReach): Promise<PayoutRecord | null> {
    const rows = isLinksOwnMode(reach)
      ? await this.db.query<PayoutRow>(`SELECT ${COLUMNS} FROM payouts WHERE id = $1`, [id])
      : await this.db.query<PayoutRow>(`SELECT ${COLUMNS} FROM payouts WHERE id = $1 AND livemode = $2`, [id, reach.mode === 'live']);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async findKept(scope: string, keySha256: string): Promise<{ fingerprint: string; payoutId: string } | null> {
    const rows = await this.db.query<{ fingerprint: string; response: { payout_id?: string } | null }>(
      `SELECT fingerprint, response FROM idempotency_keys WHERE scope = $1 AND key_sha256 = $2 AND created_at > now() - idempotency_key_ttl()`,
      [scope, keySha256],
    );
    const row = rows[0];
    const payoutId = row?.response?.payout_id;
    return row && payoutId ? { fingerprint: row.fingerprint, payoutId } : null;
  }

  async list(query: PayoutListQuery): Promise<PayoutRecord[]> {
    const params: unknown[] = [query.scope.merchantId, query.scope.mode === 'live'];
    const where = ['merchant_id = $1', 'livemode = $2'];
    const add = (sql: (n: number) => string, value: unknown) => {
      params.push(value);
      where.push(sql(params.length));
    };
    if (query.scope.shopId !== undefined) add((n) => `shop_id = $${n}`, query.scope.shopId);
    if (query.shopId !== null) add((n) => `shop_id = $${n}`, query.shopId);
    if (query.status !== null) add((n) => `status = $${n}`, query.status);
    if (query.after) {
      params.push(query.after.createdAtMicros.toString(), query.after.id);
      where.push(`(created_at, id) < (${FROM_MICROS(`$${params.length - 1}`)}, $${params.length}::uuid)`);
    }
    params.push(query.limit);
    return (
      await this.db.query<PayoutRow>(
        `SELECT ${COLUMNS} FROM payouts WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
        params,
      )
    ).map(toRecord);
  }

  async listAll(merchantId: string | null, status: PayoutStatus | null, limit: number): Promise<PayoutRecord[]> {
    return (
      await this.db.query<PayoutRow>(
        `SELECT ${COLUMNS} FROM payouts WHERE ($1::uuid IS NULL OR merchant_id = $1) AND ($2::text IS NULL OR status = $2)
          ORDER BY created_at DESC, id DESC LIMIT $3`,
        [merchantId, status, limit],
      )
    ).map(toRecord);
  }
}

/**
 * The posting of a move (docs/payouts.md, "Ledger"): nothing for approve and processing; paid takes the money out of
 * transit to the rail's clearing (the fee to revenue); canceled, rejected and failed give it back to the shop's
 * balance, from transit, or from the clearing and revenue when a paid payout comes back (a bank's return).
 */
async function postMove(client: PoolClient, before: PayoutRow, to: PayoutStatus): Promise<void> {
  const amount = Number(before.amount);
  const fee = Number(before.fee);
  const total = amount + fee;
  if (to === 'paid') {
    await post(client, 'payout_paid', before.id, -amount, fee, 0, [
      { account: 'payouts_in_transit', amount: -total },
      { account: 'clearing', provider: before.rail, amount },
      { account: 'revenue', amount: fee },
    ]);
    return;
  }
  if (to !== 'failed' && to !== 'canceled' && to !== 'rejected') return;
  const from: Leg[] =
    before.status === 'paid'
      ? [
          { account: 'clearing', provider: before.rail, amount: -amount },
          { account: 'revenue', amount: -fee },
        ]
      : [{ account: 'payouts_in_transit', amount: -total }];
  await post(client, 'payout_returned', before.id, amount, fee, total, [...from, { account: 'available', amount: total }]);
}

async function post(
  client: PoolClient,
  type: 'payout' | 'payout_returned' | 'payout_paid',
  payoutId: string,
  amount: number,
  fee: number,
  net: number,
  entries: Leg[],
): Promise<void> {
  await client.query(`SELECT ledger_post_payout($1, $2, $3, $4, $5, $6::jsonb)`, [type, payoutId, amount, fee, net, JSON.stringify(entries)]);
}
