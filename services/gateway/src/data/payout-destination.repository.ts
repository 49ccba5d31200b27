import { randomUUID } from 'node:crypto';
import { formatMoscow, type CreatePayoutDestinationBody, type Mode, type PayoutDestination, type PayoutDestinationSnapshot } from '@pl/contracts';
import type { Db } from '@pl/db';
import { ROLE_ACTIONS } from '../domain/roles';
import type { UserLanguage } from '@pl/contracts';
import type { EnqueueMail } from './user.repository';

interface DestinationRow {
  id: string;
  livemode: boolean;
  type: PayoutDestinationSnapshot['type'];
  details: PayoutDestinationSnapshot['details'];
  masked: string;
  created_by: string | null;
  created_at: Date;
  active_at: Date;
}

/** A destination as the gateway holds it: the view, and the details a payout's snapshot carries to links. */
export interface DestinationRecord {
  view: PayoutDestination;
  snapshot: PayoutDestinationSnapshot;
  active: boolean;
}

const COLUMNS = (cooldown: string) =>
  `id, livemode, type, details, masked, created_by, created_at, created_at + make_interval(secs => ${cooldown}::float8) AS active_at`;

const toRecord = (r: DestinationRow, now: Date): DestinationRecord => {
  const active = r.active_at.getTime() <= now.getTime();
  const network = r.type === 'crypto_address' && 'network' in r.details ? r.details.network : null;
  return {
    active,
    snapshot: { id: r.id, type: r.type, masked: r.masked, details: r.details },
    view: {
      id: r.id,
      type: r.type,
      status: active ? 'active' : 'pending',
      masked: r.masked,
      network,
      livemode: r.livemode,
      created_by: r.created_by,
      created_at: formatMoscow(r.created_at),
      active_at: formatMoscow(r.active_at),
    },
  };
};

/** The roles that get a mail when a destination is added: every role that may make payouts or approve them. */
const PAYOUT_ROLES = [...new Set([...ROLE_ACTIONS.payouts, ...ROLE_ACTIONS.approve_payouts])];

/**
 * Payout destinations (docs/adr/0036) and the account's payout settings, in the gateway's schema beside accounts:
 * a destination and the mails to the account's members with payout rights are written in one transaction.
 * `cooldownHours` is PAYOUT_DESTINATION_COOLDOWN_HOURS: a destination is `active` that long after it was added.
 */
export class PayoutDestinationRepository {
  constructor(
    private readonly db: Db,
    private readonly enqueueMail: EnqueueMail,
    private readonly cooldownHours: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private get cooldownSeconds(): number {
    return this.cooldownHours * 3600;
  }

  async create(
    owner: { merchantId: string; mode: Mode; userId: string },
    body: CreatePayoutDestinationBody,
    masked: string,
  ): Promise<DestinationRecord> {
    const details = body.type === 'bank_account' ? { ...body.bank_account, kpp: body.bank_account.kpp ?? null } : body.crypto_address;
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<DestinationRow>(
        `INSERT INTO payout_destinations (id, merchant_id, livemode, type, details, masked, created_by)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7) RETURNING ${COLUMNS('$8')}`,
        [randomUUID(), owner.merchantId, owner.mode === 'live', body.type, JSON.stringify(details), masked, owner.userId, this.cooldownSeconds],
      );
      const row = rows[0];
      if (!row) throw new Error('payout destination insert returned no row');
      const members = await tx.query<{ email: string; language: UserLanguage }>(
        `SELECT u.email, u.language FROM memberships m JOIN users u ON u.id = m.user_id
          WHERE m.merchant_id = $1 AND m.role = ANY($2::text[]) ORDER BY u.email`,
        [owner.merchantId, PAYOUT_ROLES],
      );
      const record = toRecord(row, this.now());
      for (const member of members.rows) {
        await this.enqueueMail(tx, {
          to: member.email,
          template: 'payout_destination_added',
          language: member.language,
          params: { kind: row.type, masked: row.masked, active_at: record.view.active_at.replace('T', ' ').slice(0, 16) },
        });
      }
      return record;
    });
  }

  async list(merchantId: string, mode: Mode): Promise<DestinationRecord[]> {
    const rows = await this.db.query<DestinationRow>(
      `SELECT ${COLUMNS('$3')} FROM payout_destinations
        WHERE merchant_id = $1 AND livemode = $2 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC`,
      [merchantId, mode === 'live', this.cooldownSeconds],
    );
    const now = this.now();
    return rows.map((r) => toRecord(r, now));
  }

  /** The account's destination of the mode, or null: another account's (or mode's, or a removed one) is not there. */
  async find(merchantId: string, mode: Mode, id: string): Promise<DestinationRecord | null> {
    const rows = await this.db.query<DestinationRow>(
      `SELECT ${COLUMNS('$4')} FROM payout_destinations
        WHERE id = $1 AND merchant_id = $2 AND livemode = $3 AND deleted_at IS NULL`,
      [id, merchantId, mode === 'live', this.cooldownSeconds],
    );
    return rows[0] ? toRecord(rows[0], this.now()) : null;
  }

  /** Removes it from use; payouts made to it keep their snapshot. False when there was none to remove. */
  async remove(merchantId: string, mode: Mode, id: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE payout_destinations SET deleted_at = now() WHERE id = $1 AND merchant_id = $2 AND livemode = $3 AND deleted_at IS NULL RETURNING id`,
      [id, merchantId, mode === 'live'],
    );
    return rows.length === 1;
  }

  async payoutSettings(merchantId: string): Promise<{ requireApproval: boolean; onHold: boolean }> {
    const rows = await this.db.query<{ require_payout_approval: boolean; payouts_on_hold: boolean }>(
      'SELECT require_payout_approval, payouts_on_hold FROM merchants WHERE id = $1',
      [merchantId],
    );
    return { requireApproval: rows[0]?.require_payout_approval ?? false, onHold: rows[0]?.payouts_on_hold ?? false };
  }

  async setRequireApproval(merchantId: string, required: boolean): Promise<void> {
    await this.db.query('UPDATE merchants SET require_payout_approval = $2 WHERE id = $1', [merchantId, required]);
  }
}

/** The operators' `payout:hold` / `payout:release`: stops or resumes an account's payouts; false for an unknown account. */
export async function setPayoutHold(db: Db, merchantId: string, onHold: boolean): Promise<boolean> {
  const rows = await db.query('UPDATE merchants SET payouts_on_hold = $2 WHERE id = $1 RETURNING id', [merchantId, onHold]);
  return rows.length === 1;
}
