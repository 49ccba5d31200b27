import { bankAccountDetails } from '@pl/contracts';
import type { Db } from '@pl/db';
import type { PayoutBatch, PayoutBatchOrder, PayoutBatchProgress, PayoutBatchStore } from '../domain/payout-batch';

/** pg hands bigint back as text; kopecks stay far below 2^53. */
interface BatchRow {
  id: string;
  payout_count: number;
  total: string;
  created_at: Date;
  exported_at: Date | null;
  last_exported_at: Date | null;
  export_count: number;
  sent_at: Date | null;
}

const COLUMNS = 'id, payout_count, total, created_at, exported_at, last_exported_at, export_count, sent_at';

const toBatch = (r: BatchRow): PayoutBatch => ({
  id: r.id,
  payoutCount: r.payout_count,
  total: Number(r.total),
  createdAt: r.created_at,
  exportedAt: r.exported_at,
  lastExportedAt: r.last_exported_at,
  exportCount: r.export_count,
  sentAt: r.sent_at,
});

/**
 * Batch creation is one at a time: a second `payout:batch:create` waits for the first to commit and then finds nothing
 * left, rather than splitting the payouts between two batches. The item table's primary key holds the rule either way.
 */
const CREATE_LOCK = `SELECT pg_advisory_xact_lock(hashtextextended('payout_batches:create', 0))`;

/** Batches of bank payouts in the links schema (docs/adr/0045-payout-batches-and-statement-import.md). */
export class PayoutBatchRepository implements PayoutBatchStore {
  constructor(private readonly db: Db) {}

  async create(id: string): Promise<PayoutBatch | null> {
    return this.db.transaction(async (client) => {
      await client.query(CREATE_LOCK);
      // The rows locked in the order they are numbered; a cancel waiting on one of them finds it processing and is refused.
      const { rows: picked } = await client.query<{ id: string; amount: string }>(
        `SELECT p.id, p.amount FROM payouts p
          WHERE p.rail = 'bank' AND p.livemode AND p.status = 'approved'
            AND NOT EXISTS (SELECT 1 FROM payout_batch_items i WHERE i.payout_id = p.id)
          ORDER BY p.created_at, p.id
          FOR UPDATE OF p`,
      );
      if (picked.length === 0) return null;
      const ids = picked.map((p) => p.id);
      const total = picked.reduce((sum, p) => sum + Number(p.amount), 0);
      const { rows } = await client.query<BatchRow>(`INSERT INTO payout_batches (id, payout_count, total) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`, [
        id,
        picked.length,
        total,
      ]);
      await client.query(
        `INSERT INTO payout_batch_items (payout_id, batch_id, order_number, amount)
         SELECT u.id, $1, nextval('payout_order_number'), u.amount
           FROM unnest($2::uuid[], $3::bigint[]) WITH ORDINALITY AS u(id, amount, n) ORDER BY u.n`,
        [id, ids, picked.map((p) => p.amount)],
      );
      // markPayoutProcessing's move, for the whole batch in this transaction: approved → processing has no posting
      // and no event (payout-transitions.ts), so the state and its stamp are all it writes.
      await client.query(
        `UPDATE payouts SET status = 'processing', processing_at = clock_timestamp(), updated_at = clock_timestamp()
          WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      const batch = rows[0];
      if (!batch) throw new Error('payout batch insert returned no row');
      return toBatch(batch);
    });
  }

  async find(id: string): Promise<PayoutBatch | null> {
    const rows = await this.db.query<BatchRow>(`SELECT ${COLUMNS} FROM payout_batches WHERE id = $1`, [id]);
    return rows[0] ? toBatch(rows[0]) : null;
  }

  async orders(batchId: string): Promise<PayoutBatchOrder[]> {
    const rows = await this.db.query<{ payout_id: string; order_number: number; amount: string; destination_details: unknown }>(
      `SELECT i.payout_id, i.order_number, i.amount, p.destination_details
         FROM payout_batch_items i JOIN payouts p ON p.id = i.payout_id
        WHERE i.batch_id = $1 ORDER BY i.order_number`,
      [batchId],
    );
    return rows.map((r) => {
      const payee = bankAccountDetails.safeParse(r.destination_details);
      // Only bank_account destinations reach the bank rail; a row without one is a fault to stop on, not to skip.
      if (!payee.success) throw new Error(`Payout ${r.payout_id} of batch ${batchId} has no bank account details`);
      return { payoutId: r.payout_id, orderNumber: r.order_number, amount: Number(r.amount), payee: payee.data };
    });
  }

  async recordExport(batchId: string, at: Date): Promise<PayoutBatch | null> {
    const rows = await this.db.query<BatchRow>(
      `UPDATE payout_batches SET exported_at = coalesce(exported_at, $2), last_exported_at = $2, export_count = export_count + 1
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [batchId, at],
    );
    return rows[0] ? toBatch(rows[0]) : null;
  }

  async recordSent(batchId: string): Promise<PayoutBatch | 'not_exported' | null> {
    const rows = await this.db.query<BatchRow>(
      `UPDATE payout_batches SET sent_at = coalesce(sent_at, clock_timestamp())
        WHERE id = $1 AND exported_at IS NOT NULL RETURNING ${COLUMNS}`,
      [batchId],
    );
    if (rows[0]) return toBatch(rows[0]);
    return (await this.find(batchId)) ? 'not_exported' : null;
  }

  async list(limit: number): Promise<PayoutBatchProgress[]> {
    const rows = await this.db.query<BatchRow & { processing: number; paid: number; failed: number }>(
      `SELECT b.*, c.processing, c.paid, c.failed
         FROM (SELECT ${COLUMNS} FROM payout_batches ORDER BY created_at DESC, id DESC LIMIT $1) b
        CROSS JOIN LATERAL (
          SELECT count(*) FILTER (WHERE p.status = 'processing')::int AS processing,
                 count(*) FILTER (WHERE p.status = 'paid')::int AS paid,
                 count(*) FILTER (WHERE p.status = 'failed')::int AS failed
            FROM payout_batch_items i JOIN payouts p ON p.id = i.payout_id
           WHERE i.batch_id = b.id) c
        ORDER BY b.created_at DESC, b.id DESC`,
      [limit],
    );
    return rows.map((r) => ({ ...toBatch(r), processing: r.processing, paid: r.paid, failed: r.failed }));
  }
}
