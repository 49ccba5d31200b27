import type { MailLanguage } from './request';

/**
 * The daily report mail's facts (docs/adr/0049): the shops' figures travel as one JSON param, `shops`, checked when
 * the mail is enqueued (a mail that cannot be written is refused then, not found unsendable later) and read back
 * when it is written. Money is the wire's decimal text (`-500.00`), shown in the reader's locale without floats.
 */
export interface DailyReportShop {
  id: number;
  name: string;
  /** Payments of the day: how many, and their amounts' sum. */
  payments: number;
  gross: string;
  /** The day's totals, as the report's `total` line: the fees and the movement of the shop's available balance. */
  fee: string;
  net: string;
}

/** At most this many shops are named in one mail; the rest are counted (`more_shops`) and left to the dashboard. */
export const DAILY_REPORT_MAIL_SHOPS_MAX = 20;

const MONEY = /^-?\d{1,15}\.\d{2}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isShop = (s: unknown): s is DailyReportShop => {
  if (typeof s !== 'object' || s === null) return false;
  const o = s as Record<string, unknown>;
  return (
    Object.keys(o).length === 6 &&
    Number.isSafeInteger(o.id) &&
    (o.id as number) > 0 &&
    typeof o.name === 'string' &&
    o.name.length <= 200 &&
    Number.isSafeInteger(o.payments) &&
    (o.payments as number) >= 0 &&
    [o.gross, o.fee, o.net].every((m) => typeof m === 'string' && MONEY.test(m))
  );
};

/** The shops of a `daily_report` mail's params, or why they are not what the template reads. */
export function dailyReportShops(params: Readonly<Record<string, string>>): DailyReportShop[] | string {
  if (!DAY.test(params.date ?? '')) return 'daily_report: date is not YYYY-MM-DD';
  if (!/^\d{1,6}$/.test(params.more_shops ?? '')) return 'daily_report: more_shops is not a count';
  let shops: unknown;
  try {
    shops = JSON.parse(params.shops ?? '');
  } catch {
    return 'daily_report: shops is not JSON';
  }
  if (!Array.isArray(shops) || shops.length === 0 || shops.length > DAILY_REPORT_MAIL_SHOPS_MAX || !shops.every(isShop))
    return `daily_report: shops is not 1 to ${DAILY_REPORT_MAIL_SHOPS_MAX} shops of { id, name, payments, gross, fee, net }`;
  // A shop's name is the merchant's text: a line break in it (JSON carries one as \n) must not start a line of its own.
  return shops.map((shop) => ({ ...shop, name: shop.name.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ') }));
}

/** Money text as the reader's locale writes roubles; the decimal string is formatted exactly (no float). */
export function rubles(money: string, language: MailLanguage): string {
  // Intl formats a decimal string exactly (ECMA-402 v3); the cast only satisfies the older lib typings.
  return new Intl.NumberFormat(language === 'ru' ? 'ru-RU' : 'en-GB', { style: 'currency', currency: 'RUB' }).format(money as unknown as number);
}

/** `2026-11-20` as the reader's language writes a day: `20 November 2026`, `20 ноября 2026 г.`. */
export function calendarDay(day: string, language: MailLanguage): string {
  return new Intl.DateTimeFormat(language === 'ru' ? 'ru-RU' : 'en-GB', { timeZone: 'UTC', year: 'numeric', month: 'long', day: 'numeric' }).format(
    new Date(`${day}T00:00:00Z`),
  );
}

/** A shop's CSV download of the day: the report route at PUBLIC_BASE_URL, which a signed-in member's browser opens. */
export function reportUrl(reportLink: string, shopId: number, day: string): string {
  const url = new URL(reportLink);
  url.searchParams.set('shop_id', String(shopId));
  url.searchParams.set('date', day);
  return url.toString();
}
