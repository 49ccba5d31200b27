import type { CryptoAddressDetails } from '@pl/contracts';
import type { Db } from '@pl/db';
import type { HeleketPayout, HeleketPayoutStore } from '../domain/heleket-payout-store';
import type { SyncSchedule } from '../domain/status-sync-store';

/** pg hands bigint back as text; kopecks stay far below 2^53. */
interface HeleketPayoutRow {
  id: string;
  status: string;
  amount: string;
  destination_details: CryptoAddressDetails;
  provider_payout_id: string | null;
  processing_at: Date | null;
}

const COLUMNS = 'p.id, p.status, p.amount, p.destination_details, p.provider_payout_id, p.processing_at';
/** The Heleket rail holds live crypto payouts only (payout-create's railOf); the checks keep any other out regardless. */
const ON_RAIL = `p.rail = 'heleket' AND p.livemode AND p.destination_type = 'crypto_address'`;

const toPayout = (r: HeleketPayoutRow): HeleketPayout => ({
  id: r.id,
  status: r.status,
  amount: Number(r.amount),
  network: r.destination_details.network,
  address: r.destination_details.address,
  providerPayoutId: r.provider_payout_id,
  processingAt: r.processing_at,
});

const ms = (value: number): string => `${value} milliseconds`;

export class HeleketPayoutRepository implements HeleketPayoutStore {
  constructor(private readonly db: Db) {}

  async approved(limit: number): Promise<HeleketPayout[]> {
    // payouts_rail_queue_idx (rail, status, created_at): the approved ones of the rail, oldest first.
    const rows = await this.db.query<HeleketPayoutRow>(
      `SELECT ${COLUMNS} FROM payouts p WHERE ${ON_RAIL} AND p.status = 'approved' ORDER BY p.created_at LIMIT $1`,
      [limit],
    );
    return rows.map(toPayout);
  }

  async claimDue(schedule: SyncSchedule, limit: number): Promise<HeleketPayout[]> {
    // Due: read before and due again, or never read and processing for the first delay. The claim moves the next read
    // one interval on in the same statement, so the row lock lasts this statement only.
    const rows = await this.db.query<HeleketPayoutRow>(
      `WITH due AS (
         SELECT p.id FROM payouts p
          WHERE ${ON_RAIL} AND p.status = 'processing'
            AND COALESCE(p.sync_due_at, p.processing_at) <= now()
            AND (p.sync_due_at IS NOT NULL OR p.processing_at <= now() - $1::interval)
          ORDER BY COALESCE(p.sync_due_at, p.processing_at)
          LIMIT $3
          FOR UPDATE SKIP LOCKED
       )
       UPDATE payouts p SET sync_due_at = now() + $2::interval FROM due WHERE p.id = due.id RETURNING ${COLUMNS}`,
      [ms(schedule.firstDelayMs), ms(schedule.intervalMs), limit],
    );
    return rows.map(toPayout);
  }

  async find(id: string): Promise<HeleketPayout | null> {
    const rows = await this.db.query<HeleketPayoutRow>(`SELECT ${COLUMNS} FROM payouts p WHERE p.id = $1 AND ${ON_RAIL}`, [id]);
    return rows[0] ? toPayout(rows[0]) : null;
  }

  async recordAnswer(id: string, providerPayoutId: string, providerStatus: string): Promise<void> {
    await this.db.query(
      `UPDATE payouts SET provider_payout_id = $2, provider_status = $3
        WHERE id = $1 AND (provider_payout_id IS DISTINCT FROM $2 OR provider_status IS DISTINCT FROM $3)`,
      [id, providerPayoutId, providerStatus],
    );
  }

  async read(id: string): Promise<void> {
    await this.db.query(`UPDATE payouts SET synced_at = now() WHERE id = $1`, [id]);
  }
}
