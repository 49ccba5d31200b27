import type { Language } from './i18n/messages';

const NBSP = '\u00a0';
const MONEY = /^(-?)(\d+)\.(\d{2})$/;

const group = (digits: string, separator: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, separator);

/**
 * A rouble amount from its wire text (`"1234.50"`), as the checkout page writes it
 * (services/gateway/src/entry/checkout/format.ts): `1 234,50 ₽` in Russian, `1,234.50 ₽` in English.
 */
export function formatRub(text: string, lang: Language): string {
  const m = MONEY.exec(text);
  if (!m) return `${text}${NBSP}₽`;
  const [, sign = '', units = '0', cents = '00'] = m;
  return lang === 'ru' ? `${sign}${group(units, NBSP)},${cents}${NBSP}₽` : `${sign}${group(units, ',')}.${cents}${NBSP}₽`;
}

const ZONE = 'Europe/Moscow';
const LOCALES: Record<Language, string> = { ru: 'ru-RU', en: 'en-GB' };
const clock = { hour: '2-digit', minute: '2-digit' } as const;
/** Short: `27 Nov, 14:05` this year, `27 Nov 2025, 14:05` before; full: every part, for the hover. */
const dateFormats: Record<Language, Record<'thisYear' | 'otherYear' | 'full', Intl.DateTimeFormat>> = {
  ru: formatsOf('ru'),
  en: formatsOf('en'),
};
function formatsOf(lang: Language) {
  const locale = LOCALES[lang];
  return {
    thisYear: new Intl.DateTimeFormat(locale, { timeZone: ZONE, day: 'numeric', month: 'short', ...clock }),
    otherYear: new Intl.DateTimeFormat(locale, { timeZone: ZONE, day: 'numeric', month: 'short', year: 'numeric', ...clock }),
    full: new Intl.DateTimeFormat(locale, { timeZone: ZONE, dateStyle: 'long', timeStyle: 'medium' }),
  };
}
const yearOf = new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, year: 'numeric' });

/** A wire date (RFC 3339, +03:00) in Moscow time, whatever the browser's zone: short, or in full. */
export function formatDate(iso: string, lang: Language, style: 'short' | 'full' = 'short'): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const formats = dateFormats[lang];
  if (style === 'full') return formats.full.format(date);
  return (yearOf.format(date) === yearOf.format(new Date()) ? formats.thisYear : formats.otherYear).format(date);
}

/** Basis points as a percentage: 150 -> `1,5 %` / `1.5%`. */
export function formatBps(bps: number, lang: Language): string {
  const pct = (bps / 100).toLocaleString(LOCALES[lang], { maximumFractionDigits: 2 });
  return lang === 'ru' ? `${pct}${NBSP}%` : `${pct}%`;
}

const dayFormats: Record<Language, Intl.DateTimeFormat> = {
  ru: new Intl.DateTimeFormat(LOCALES.ru, { timeZone: 'UTC', day: 'numeric', month: 'short' }),
  en: new Intl.DateTimeFormat(LOCALES.en, { timeZone: 'UTC', day: 'numeric', month: 'short' }),
};

/**
 * A Moscow calendar day from the wire (`2026-11-28`) as `28 Nov` / `28 нояб.`. The date is already Moscow's, so it is
 * read and written in UTC: no zone may move it to the day before.
 */
export function formatDay(date: string, lang: Language): string {
  const at = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? date : dayFormats[lang].format(at);
}

/** A share from 0 to 1 (the summary's `share_paid`) as a percentage: 0.6667 -> `66,67 %` / `66.67%`. */
export const formatShare = (share: number, lang: Language): string => formatBps(Math.round(share * 10_000), lang);
