import type { AccountRole, UserLanguage } from '@pl/contracts';
import type { Db } from '@pl/db';
import type { MailRequest } from '@pl/mail';
import type { DailyReportMailMember } from '../domain/send-daily-report-mails';
import type { EnqueueMail } from './user.repository';

interface DueRow {
  user_id: string;
  merchant_id: string;
  email: string;
  language: UserLanguage;
  account_name: string;
}

/**
 * The daily report mail's state in the gateway's schema (docs/adr/0049): each member's opt-in (a column of the
 * membership) and one row per member, account and day mailed, written in the transaction that queues the mail.
 * `roles` are the roles that read money (roles.ts `read_money`): a member whose role changed keeps the flag but gets
 * no mail while the role does not read reports.
 */
export class DailyReportMailRepository {
  constructor(
    private readonly db: Db,
    private readonly enqueueMail: EnqueueMail,
    private readonly roles: readonly AccountRole[],
  ) {}

  /** The member's opt-in in the account, or null when the user is no member of it. */
  async optedIn(userId: string, merchantId: string): Promise<boolean | null> {
    const rows = await this.db.query<{ daily_report_mail: boolean }>(
      'SELECT daily_report_mail FROM memberships WHERE user_id = $1 AND merchant_id = $2',
      [userId, merchantId],
    );
    return rows[0]?.daily_report_mail ?? null;
  }

  async setOptedIn(userId: string, merchantId: string, on: boolean): Promise<boolean | null> {
    const rows = await this.db.query<{ daily_report_mail: boolean }>(
      'UPDATE memberships SET daily_report_mail = $3 WHERE user_id = $1 AND merchant_id = $2 RETURNING daily_report_mail',
      [userId, merchantId, on],
    );
    return rows[0]?.daily_report_mail ?? null;
  }

  /**
   * The members whose mail of `day` is still to send: opted in, of a role that reads money, their email confirmed
   * (a daily mail goes only to an address its owner proved), and with no row for that day yet. By account.
   */
  async due(day: string): Promise<DailyReportMailMember[]> {
    const rows = await this.db.query<DueRow>(
      `SELECT m.user_id, m.merchant_id, u.email, u.language, a.name AS account_name
         FROM memberships m JOIN users u ON u.id = m.user_id JOIN merchants a ON a.id = m.merchant_id
        WHERE m.daily_report_mail AND m.role = ANY($2::text[]) AND u.email_confirmed
          AND NOT EXISTS (SELECT 1 FROM daily_report_mails d
                           WHERE d.user_id = m.user_id AND d.merchant_id = m.merchant_id AND d.day = $1::date)
        ORDER BY m.merchant_id, u.email`,
      [day, this.roles],
    );
    return rows.map((r) => ({ userId: r.user_id, merchantId: r.merchant_id, email: r.email, language: r.language, accountName: r.account_name }));
  }

  /**
   * Records the member's mail of `day` and queues it, in one transaction; false (nothing queued) when another run
   * recorded it first, or the member has opted out or lost the role since `due` read them. Two runs racing on one
   * member meet on the row's key: the second waits for the first to commit, then inserts nothing.
   */
  async mailOnce(member: Pick<DailyReportMailMember, 'userId' | 'merchantId'>, day: string, mail: MailRequest): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query(
        `INSERT INTO daily_report_mails (user_id, merchant_id, day)
         SELECT m.user_id, m.merchant_id, $3::date FROM memberships m
          WHERE m.user_id = $1 AND m.merchant_id = $2 AND m.daily_report_mail AND m.role = ANY($4::text[])
         ON CONFLICT DO NOTHING`,
        [member.userId, member.merchantId, day, this.roles],
      );
      if (rowCount !== 1) return false;
      await this.enqueueMail(tx, mail);
      return true;
    });
  }
}
