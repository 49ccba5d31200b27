import type { PoolClient } from 'pg';
import { PAYMENT_EVENTS_TOPIC, type PayoutDestinationSnapshot, type PayoutStatus } from '@pl/contracts';
import type { Db } from '@pl/db';
import { currentTraceparent } from '@pl/telemetry';
import type { OutboxEntry } from '../domain/link';
import type {
  NewPayout,
  PayoutCreation,
  PayoutListQuery,
  PayoutMove,
  PayoutMoveResult,
  PayoutRail,
  PayoutRecord,
  PayoutStore,
} from '../domain/payout';
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

const sqlState = (e: unknown): unknown => (typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined);
const constraintOf = (e: unknown): unknown => (typeof e === 'object' && e !== null ? (e as { constraint?: unknown }).constraint : undefined);
const isKeyTaken = (e: unknown): boolean => sqlState(e) === '23505' && constraintOf(e) === 'idempotency_keys_pkey';
/** Another scheduler decided this schedule's period first (docs/adr/0046). */
const isPeriodTaken = (e: unknown): boolean => sqlState(e) === '23505' && constraintOf(e) === 'payout_schedule_runs_pkey';
/** The ledger's CHECK on a shop's running balance: a refund took the money between our read and our posting (cannot, under the lock; kept as the last word). */
const isBalanceShort = (e: unknown): boolean => sqlState(e) === '23514' && constraintOf(e) === 'ledger_accounts_balance_check';

interface Leg {
  account: 'available' | 'payouts_in_transit' | 'revenue' | 'clearing';
  provider?: string;
  amount: number;
}

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
    // The payout as it will be written, so its event is stored before the locks are taken: they are then held for
    // one statement and the commit (50 payouts of one account queue on them).
    const at = new Date();
    const created: PayoutRecord = {
      id: p.id,
      merchantId: p.merchantId,
      shopId: p.shopId,
      livemode: p.livemode,
      amount: p.amount,
      fee: p.fee,
      status: p.status,
      description: p.description,
      destination: p.destination,
      rail: p.rail,
      failureReason: null,
      createdBy: p.createdBy,
      approvedBy: null,
      canceledBy: null,
      createdAt: at,
      createdAtMicros: BigInt(at.getTime()) * 1000n,
      approvedAt: p.status === 'approved' ? at : null,
      processingAt: null,
      paidAt: null,
      failedAt: null,
      canceledAt: null,
      updatedAt: at,
    };
    const entry = eventOf(created);
    try {
      await this.db.transaction(async (client) => {
        if (p.key) {
          await client.query(
            `INSERT INTO idempotency_keys (scope, key_sha256, fingerprint, link_id, response) VALUES ($1, $2, $3, NULL, json_build_object('payout_id', $4::text))`,
            [p.key.scope, p.key.keySha256, p.key.fingerprint, p.id],
          );
        }
        if (p.schedule) {
          // First, so a second scheduler of the period waits on this key alone and then gives up, taking no payout lock.
          await client.query(
            `INSERT INTO payout_schedule_runs (shop_id, livemode, period, interval, merchant_id, outcome, payout_id, available, minimum)
             VALUES ($1, $2, $3, $4, $5, 'created', $6, $7, $8)`,
            [
              p.shopId,
              p.livemode,
              p.schedule.period,
              p.schedule.interval,
              p.merchantId,
              p.id,
              p.schedule.availableKopecks,
              p.schedule.minimumKopecks,
            ],
          );
        }
        await insertOutboxEntry(client, entry);
        await client.query(`SELECT payout_create($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15, $16, $17)`, [
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
          at,
          p.holdHours * 3600,
          p.dailyMaxKopecks,
        ]);
      });
    } catch (e) {
      if (sqlState(e) === 'PL422') {
        const refusal = (e as { message?: unknown }).message;
        return { kind: refusal === 'daily_limit' ? 'daily_limit' : 'insufficient_available' };
      }
      if (isKeyTaken(e)) return { kind: 'key_taken' };
      if (isPeriodTaken(e)) return { kind: 'period_taken' };
      if (isBalanceShort(e)) return { kind: 'insufficient_available' };
      throw e;
    }
    this.onEventWritten(committedEntry(entry, currentTraceparent()));
    return { kind: 'created', payout: created };
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
