import type { Db } from '@pl/db';
import type { AppliedStatementLine, PayoutStatementStore } from '../domain/payout-statement';

/** The statement lines that moved bank payouts, in the links schema (table payout_statement_lines). */
export class PayoutStatementRepository implements PayoutStatementStore {
  constructor(private readonly db: Db) {}

  async appliedLine(lineKey: string): Promise<{ payoutId: string } | null> {
    const rows = await this.db.query<{ payout_id: string }>(`SELECT payout_id FROM payout_statement_lines WHERE line_key = $1`, [lineKey]);
    return rows[0] ? { payoutId: rows[0].payout_id } : null;
  }

  async lineOfPayout(payoutId: string, direction: 'debit' | 'credit'): Promise<string | null> {
    const rows = await this.db.query<{ line_key: string }>(`SELECT line_key FROM payout_statement_lines WHERE payout_id = $1 AND direction = $2`, [
      payoutId,
      direction,
    ]);
    return rows[0]?.line_key ?? null;
  }

  async record(line: AppliedStatementLine): Promise<boolean> {
    // Either unique key may be hit: the line itself (already recorded: fine) or the payout's direction (another line).
    const rows = await this.db.query<{ line_key: string }>(
      `INSERT INTO payout_statement_lines (line_key, payout_id, direction, document_number, document_date, amount, purpose,
                                           counterparty_account, file_sha256)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING line_key`,
      [
        line.lineKey,
        line.payoutId,
        line.direction,
        line.documentNumber,
        line.documentDate,
        line.amount,
        line.purpose,
        line.counterpartyAccount,
        line.fileSha256,
      ],
    );
    if (rows.length > 0) return true;
    return (await this.appliedLine(line.lineKey)) !== null;
  }
}
