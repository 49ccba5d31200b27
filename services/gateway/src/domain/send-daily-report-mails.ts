import type { DailyReportRow, UserLanguage } from '@pl/contracts';
import { DAILY_REPORT_MAIL_SHOPS_MAX, type DailyReportShop, type MailRequest } from '@pl/mail';
import { dailyReportMailDay, shopDayFigures } from './daily-report-mail';

/** A member to mail: opted in, in one account. */
export interface DailyReportMailMember {
  userId: string;
  merchantId: string;
  email: string;
  language: UserLanguage;
  accountName: string;
}

/** What the use case needs, so it runs the same behind the timer and in a test with its own clock. */
export interface DailyReportMailPorts {
  /** The members whose mail of the day is still to send (DailyReportMailRepository.due). */
  due(day: string): Promise<DailyReportMailMember[]>;
  /** Records the member's mail of the day and queues it in one transaction; false if it was already recorded. */
  mailOnce(member: DailyReportMailMember, day: string, mail: MailRequest): Promise<boolean>;
  /** Every live shop of the account, oldest first. */
  shopsOf(merchantId: string): Promise<{ id: number; name: string }[]>;
  /** A live shop's report rows of the day, page by page (ADR 40). */
  reportRows(merchantId: string, shopId: number, day: string): AsyncIterable<DailyReportRow>;
  /** The dashboard's Home page and the CSV route at PUBLIC_BASE_URL. */
  links: { dashboard: string; report: string };
  /** An account's mail (or one member's) that could not be made this run (links down, say): the next run tries again. */
  onAccountError(err: unknown, merchantId: string): void;
}

/**
 * One run of the daily report mail (docs/adr/0049): from 07:00 Moscow, each opted-in member not yet mailed for
 * yesterday gets one mail per account with shops, naming each shop's figures of the day and linking its CSV. Runs on
 * every replica, as often as it likes: the once-per-member-and-day row decides who queues each mail. The figures are
 * read before any transaction (bus calls hold no connection); the row and the mail are then one transaction each.
 */
export async function sendDailyReportMails(ports: DailyReportMailPorts, now: Date): Promise<{ day: string | null; queued: number }> {
  const day = dailyReportMailDay(now);
  if (day === null) return { day, queued: 0 };
  let queued = 0;
  for (const [merchantId, members] of byAccount(await ports.due(day))) {
    let params: Record<string, string> | null;
    try {
      params = await accountParams(ports, merchantId, day);
    } catch (err) {
      ports.onAccountError(err, merchantId);
      continue;
    }
    if (params === null) continue;
    // One member's mail that cannot be queued (an address the queue refuses, say) holds back no other's.
    for (const member of members) {
      const mail: MailRequest = {
        to: member.email,
        template: 'daily_report',
        language: member.language,
        params: { ...params, account_name: member.accountName },
      };
      try {
        if (await ports.mailOnce(member, day, mail)) queued += 1;
      } catch (err) {
        ports.onAccountError(err, merchantId);
      }
    }
  }
  return { day, queued };
}

/** The params every member of the account gets for the day, or null for an account without shops (no mail). */
async function accountParams(ports: DailyReportMailPorts, merchantId: string, day: string): Promise<Record<string, string> | null> {
  const shops = await ports.shopsOf(merchantId);
  if (shops.length === 0) return null;
  const named: DailyReportShop[] = [];
  for (const shop of shops.slice(0, DAILY_REPORT_MAIL_SHOPS_MAX)) {
    named.push(await shopDayFigures(shop, ports.reportRows(merchantId, shop.id, day)));
  }
  return {
    link: ports.links.dashboard,
    report_link: ports.links.report,
    date: day,
    shops: JSON.stringify(named),
    more_shops: String(shops.length - named.length),
  };
}

function byAccount(members: DailyReportMailMember[]): Map<string, DailyReportMailMember[]> {
  const accounts = new Map<string, DailyReportMailMember[]>();
  for (const member of members) accounts.set(member.merchantId, [...(accounts.get(member.merchantId) ?? []), member]);
  return accounts;
}
