import type { DailyReportRow } from '@pl/contracts';
import type { DailyReportShop } from '@pl/mail';
import { formatKopecks } from '@pl/money';
import { dailyReportRecords } from './daily-report-csv';

/** Moscow keeps UTC+3 all year (no DST since 2014), as the report's day does (ADR 40). */
const MOSCOW_OFFSET_MS = 3 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The hour (Moscow) from which yesterday's mail is due: the morning, after the night's late postings. */
const DAILY_REPORT_MAIL_HOUR = 7;

/**
 * The Moscow day whose mail is due at `now`, or null before `DAILY_REPORT_MAIL_HOUR` (Moscow): from 07:00 on, the
 * day before. A replica that was down at 07:00 finds the same day due whenever it runs later that day.
 */
export function dailyReportMailDay(now: Date, hour = DAILY_REPORT_MAIL_HOUR): string | null {
  const moscow = new Date(now.getTime() + MOSCOW_OFFSET_MS);
  if (moscow.getUTCHours() < hour) return null;
  return new Date(moscow.getTime() - DAY_MS).toISOString().slice(0, 10);
}

/**
 * A shop's figures of the day from its report's rows: the payments (how many, their sum) and the `total` line
 * the CSV ends with (read from the same code, so the mail and the file agree to the kopeck).
 */
export async function shopDayFigures(shop: { id: number; name: string }, rows: AsyncIterable<DailyReportRow>): Promise<DailyReportShop> {
  let payments = 0;
  let gross = 0n;
  const counted = async function* (): AsyncGenerator<DailyReportRow> {
    for await (const row of rows) {
      if (row.type === 'payment') {
        payments += 1;
        gross += BigInt(row.amount.replace('.', ''));
      }
      yield row;
    }
  };
  let total: { amount: string | null; fee: string | null; net: string | null } | undefined;
  for await (const record of dailyReportRecords(counted())) total = record;
  return { id: shop.id, name: shop.name, payments, gross: formatKopecks(gross), fee: total?.fee ?? '0.00', net: total?.net ?? '0.00' };
}
