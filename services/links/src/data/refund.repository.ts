import type { PoolClient } from 'pg';
import { PAYMENT_EVENTS_TOPIC, type RefundStatus } from '@pl/contracts';
import type { Db } from '@pl/db';
import { currentTraceparent } from '@pl/telemetry';
import type { OutboxEntry } from '../domain/link';
import { isLinksOwnMode, type IdempotencyKeyRef, type ModeReach } from '../domain/ports';
import type {
  KeptRefund,
  RefundCreation,
  RefundListQuery,
  RefundRecord,
  RefundRequestOf,
  RefundSettlement,
  RefundStore,
  RefundTarget,
  RefundVerdict,
} from '../domain/refund';
import { FROM_MICROS } from './link.row';
import { committedEntry, insertOutboxEntry } from './outbox.repository';

/** pg hands bigint back as text; kopecks and shop ids stay far below 2^53. Dates are text once kept as JSON. */
interface RefundRow {
  id: string;
  payment_link_id: string;
  merchant_id: string;
  shop_id: string;
  livemode: boolean;
  amount: string;
  status: RefundStatus;
  reason: string | null;
  destination: string | null;
  provider: string;
  gateway_refund_id: string | null;
  failure_reason: string | null;
  late_payment_id: string | null;
  created_at: Date | string;
  created_at_us: string;
  updated_at: Date | string;
}

const COLUMNS = `id, payment_link_id, merchant_id, shop_id, livemode, amount, status, reason, destination, provider,
  gateway_refund_id, failure_reason, late_payment_id, created_at,
  (extract(epoch FROM created_at) * 1000000)::bigint AS created_at_us, updated_at`;

const toRecord = (r: RefundRow): RefundRecord => ({
  id: r.id,
  paymentLinkId: r.payment_link_id,
  merchantId: r.merchant_id,
  shopId: Number(r.shop_id),
  livemode: r.livemode,
  amount: Number(r.amount),
  status: r.status,
  reason: r.reason,
  destination: r.destination,
  provider: r.provider,
  gatewayRefundId: r.gateway_refund_id,
  failureReason: r.failure_reason,
  latePaymentId: r.late_payment_id,
  createdAt: new Date(r.created_at),
  createdAtMicros: BigInt(r.created_at_us),
  updatedAt: new Date(r.updated_at),
});

/** A refusal found inside the transaction: thrown to roll it back (the key's record with it), then answered. */
class Refused extends Error {
  constructor(readonly outcome: Exclude<RefundCreation, { kind: 'created' }>) {
    super(outcome.kind);
  }
}

const sqlState = (e: unknown): unknown => (typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined);
const constraintOf = (e: unknown): unknown => (typeof e === 'object' && e !== null ? (e as { constraint?: unknown }).constraint : undefined);

/** Postgres refused a second record for a key (after the first one's transaction committed). */
const isKeyTaken = (e: unknown): boolean => sqlState(e) === '23505' && constraintOf(e) === 'idempotency_keys_pkey';
/** The ledger's CHECK on a shop's running balance: the posting would take it below zero. */
const isBalanceShort = (e: unknown): boolean => sqlState(e) === '23514' && constraintOf(e) === 'ledger_accounts_balance_check';

interface LinkSums {
  status: string;
  amount: string;
  amount_refunded: string;
  amount_refund_pending: string;
}

/** Refunds in the `links` schema, moved with their link's sums, their ledger postings and their events. */
export class RefundRepository implements RefundStore {
  constructor(
    private readonly db: Db,
    private readonly onEventWritten: (entry: OutboxEntry) => void = () => undefined,
    private readonly eventsTopic: string = PAYMENT_EVENTS_TOPIC,
  ) {}

  /**
   * The key's record is claimed first, so a concurrent request with the same key waits for this one and then
   * fails on it, rather than being judged against the refundable amount this one just took. The link's row lock
   * serialises the link's refunds; the posting's CHECK, the shop's balance.
   */
  async create(request: RefundRequestOf): Promise<RefundCreation> {
    try {
      return await this.db.transaction(async (client) => {
        const { key, link } = request;
        if (key) {
          await client.query(
            `INSERT INTO idempotency_keys (scope, key_sha256, fingerprint, link_id, response) VALUES ($1, $2, $3, $4, 'null'::json)`,
            [key.scope, key.keySha256, key.fingerprint, link.id],
          );
        }
        // NO KEY UPDATE, not UPDATE: the key record's foreign key holds a KEY SHARE lock on the link, which a FOR UPDATE
        // of a concurrent refund (holding its own key's KEY SHARE) would wait on, each for the other: a deadlock.
        const { rows: sums } = await client.query<LinkSums>(
          `SELECT status, amount, amount_refunded, amount_refund_pending FROM payment_links WHERE id = $1 FOR NO KEY UPDATE`,
          [link.id],
        );
        const sum = sums[0];
        if (sum?.status !== 'paid') throw new Refused({ kind: 'not_paid', status: sum?.status ?? 'unknown' });
        const refundable = Number(sum.amount) - Number(sum.amount_refunded) - Number(sum.amount_refund_pending);
        const amount = request.amount ?? refundable;
        if (amount <= 0 || amount > refundable) throw new Refused({ kind: 'exceeds_refundable', refundable });
        await client.query(`UPDATE payment_links SET amount_refund_pending = amount_refund_pending + $2 WHERE id = $1`, [link.id, amount]);

        const { rows } = await client.query<RefundRow>(
          `INSERT INTO refunds (id, payment_link_id, merchant_id, shop_id, livemode, amount, reason, destination, provider, gateway_refund_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           RETURNING ${COLUMNS}`,
          [
            request.id,
            link.id,
            link.merchantId,
            link.shopId,
            link.livemode,
            amount,
            request.reason,
            request.destination,
            request.provider.name,
            // Filled once the provider accepted it, after this transaction: no provider is called inside one.
            null,
          ],
        );
        const row = rows[0];
        if (!row) throw new Error('refund insert returned no row');
        await this.post(client, 'refund', row, -amount, [
          { account: 'available', amount: -amount },
          { account: 'refund_reserve', amount },
        ]);
        if (key) {
          await client.query(
            `UPDATE idempotency_keys SET response = $3::json WHERE scope = $1 AND key_sha256 = $2 AND created_at > now() - idempotency_key_ttl()`,
            [key.scope, key.keySha256, JSON.stringify(row)],
          );
        }
        return { kind: 'created', refund: toRecord(row) };
      });
    } catch (e) {
      if (e instanceof Refused) return e.outcome;
      if (isKeyTaken(e)) return { kind: 'key_taken' };
      if (isBalanceShort(e)) return { kind: 'insufficient_balance' };
      throw e;
    }
  }

  async recordAcceptance(id: string, gatewayRefundId: string): Promise<RefundRecord | null> {
    const rows = await this.db.query<RefundRow>(
      `UPDATE refunds SET gateway_refund_id = $2, updated_at = now() WHERE id = $1 AND gateway_refund_id IS NULL RETURNING ${COLUMNS}`,
      [id, gatewayRefundId],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async keepAnswer(key: IdempotencyKeyRef, refundId: string): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET response = (SELECT row_to_json(r) FROM (SELECT ${COLUMNS} FROM refunds WHERE id = $3) r)
        WHERE scope = $1 AND key_sha256 = $2 AND created_at > now() - idempotency_key_ttl()`,
      [key.scope, key.keySha256, refundId],
    );
  }

  async findKept(scope: string, keySha256: string): Promise<KeptRefund | null> {
    const rows = await this.db.query<{ fingerprint: string; response: RefundRow }>(
      `SELECT fingerprint, response FROM idempotency_keys WHERE scope = $1 AND key_sha256 = $2 AND created_at > now() - idempotency_key_ttl()`,
      [scope, keySha256],
    );
    const row = rows[0];
    return row ? { fingerprint: row.fingerprint, refund: toRecord(row.response) } : null;
  }

  async findById(id: string, reach: ModeReach): Promise<RefundRecord | null> {
    const rows = isLinksOwnMode(reach)
      ? await this.db.query<RefundRow>(`SELECT ${COLUMNS} FROM refunds WHERE id = $1`, [id])
      : await this.db.query<RefundRow>(`SELECT ${COLUMNS} FROM refunds WHERE id = $1 AND livemode = $2`, [id, reach.mode === 'live']);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async list(query: RefundListQuery): Promise<RefundRecord[]> {
    const params: unknown[] = [query.scope.merchantId, query.scope.mode === 'live'];
    const where = ['merchant_id = $1', 'livemode = $2'];
    const add = (sql: (n: number) => string, value: unknown) => {
      params.push(value);
      where.push(sql(params.length));
    };
    if (query.scope.shopId !== undefined) add((n) => `shop_id = $${n}`, query.scope.shopId);
    if (query.shopId !== null) add((n) => `shop_id = $${n}`, query.shopId);
    if (query.paymentLinkId !== null) add((n) => `payment_link_id = $${n}`, query.paymentLinkId);
    if (query.status !== null) add((n) => `status = $${n}`, query.status);
    if (query.after) {
      params.push(query.after.createdAtMicros.toString(), query.after.id);
      where.push(`(created_at, id) < (${FROM_MICROS(`$${params.length - 1}`)}, $${params.length}::uuid)`);
    }
    params.push(query.limit);
    return (
      await this.db.query<RefundRow>(
        `SELECT ${COLUMNS} FROM refunds WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
        params,
      )
    ).map(toRecord);
  }

  async settle(target: RefundTarget, verdict: RefundVerdict, eventOf: (settled: RefundRecord) => OutboxEntry): Promise<RefundSettlement | null> {
    const result = await this.db.transaction(async (client) => {
      const { rows: found } =
        'refundId' in target
          ? await client.query<RefundRow>(`SELECT ${COLUMNS} FROM refunds WHERE id = $1 FOR UPDATE`, [target.refundId])
          : await client.query<RefundRow>(`SELECT ${COLUMNS} FROM refunds WHERE provider = $1 AND gateway_refund_id = $2 FOR UPDATE`, [
              target.provider,
              target.gatewayRefundId,
            ]);
      const before = found[0];
      if (!before) return null;
      if (before.status !== 'pending') return { settlement: { kind: 'already_final', refund: toRecord(before) } as const, entry: null };

      const { rows } = await client.query<RefundRow>(
        `UPDATE refunds SET status = $2, failure_reason = $3, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
        [before.id, verdict.status, verdict.failureReason],
      );
      const row = rows[0];
      if (!row) throw new Error('refund update returned no row');
      const amount = Number(row.amount);
      // A late payment's refund never touched the link's sums nor the shop's balance: its money is the provider's.
      // If it fails, the payment is unresolved again, its resolution's posting reversed here.
      if (row.late_payment_id !== null && verdict.status === 'failed') await this.reopenLatePayment(client, row, row.late_payment_id);
      if (row.late_payment_id === null) {
        await client.query(
          `UPDATE payment_links SET amount_refund_pending = amount_refund_pending - $2, amount_refunded = amount_refunded + $3 WHERE id = $1`,
          [row.payment_link_id, amount, verdict.status === 'succeeded' ? amount : 0],
        );
        if (verdict.status === 'succeeded') {
          // The shop's available does not move (net 0): the reserve it set aside goes to the provider.
          await this.post(client, 'refund_succeeded', row, 0, [
            { account: 'refund_reserve', amount: -amount },
            { account: 'clearing', provider: row.provider, amount },
          ]);
        } else {
          await this.post(client, 'refund_failed', row, amount, [
            { account: 'refund_reserve', amount: -amount },
            { account: 'available', amount },
          ]);
        }
      }
      const settled = toRecord(row);
      const entry = eventOf(settled);
      await insertOutboxEntry(client, entry);
      return { settlement: { kind: 'settled', refund: settled } as const, entry: committedEntry(entry, currentTraceparent()) };
    });
    if (!result) return null;
    if (result.entry) this.onEventWritten(result.entry);
    return result.settlement;
  }

  /**
   * A late payment's refund failed: the payment goes back to unresolved (resolvable again: settled to the shop or
   * refunded anew) and its `late_refund` posting is reversed, the refund-out leg and the payment-in leg taken back
   * (type `late_refund_failed`, clearing to clearing), so the ledger holds the payment nowhere, as before the resolve.
   */
  private async reopenLatePayment(client: PoolClient, refund: RefundRow, latePaymentId: string): Promise<void> {
    const { rowCount } = await client.query(
      `UPDATE unresolved_payments SET resolution = NULL, resolved_at = NULL, refund_id = NULL WHERE id = $1 AND resolution = 'refunded'`,
      [latePaymentId],
    );
    if (rowCount !== 1) throw new Error(`unresolved payment ${latePaymentId} of refund ${refund.id} is not refunded`);
    const amount = Number(refund.amount);
    await client.query(`SELECT ledger_post('late_refund_failed', $1, $2, $3, 0, 0, 0, $4::jsonb)`, [
      refund.payment_link_id,
      refund.id,
      latePaymentId,
      JSON.stringify([
        { account: 'clearing', provider: refund.provider, amount },
        { account: 'clearing', provider: refund.provider, amount: -amount },
      ]),
    ]);
  }

  /** One ledger transaction through `ledger_post`; the statement row's amount is `net` for a refund's moves (fee 0). */
  private async post(
    client: PoolClient,
    type: 'refund' | 'refund_succeeded' | 'refund_failed',
    refund: RefundRow,
    net: number,
    entries: { account: string; provider?: string; amount: number }[],
  ): Promise<void> {
    const amount = type === 'refund_succeeded' ? -Number(refund.amount) : net;
    await client.query(`SELECT ledger_post($1, $2, $3, NULL, $4, 0, $5, $6::jsonb)`, [
      type,
      refund.payment_link_id,
      refund.id,
      amount,
      net,
      JSON.stringify(entries),
    ]);
  }
}
