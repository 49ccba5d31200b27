import type { Language } from './i18n';

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

const dateFormats: Record<Language, Intl.DateTimeFormat> = {
  ru: new Intl.DateTimeFormat('ru-RU', { timeZone: 'Europe/Moscow', dateStyle: 'medium', timeStyle: 'short' }),
  en: new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Moscow', dateStyle: 'medium', timeStyle: 'short' }),
};

/** A wire date (RFC 3339, +03:00) in Moscow time, whatever the browser's zone. */
export function formatDate(iso: string, lang: Language): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormats[lang].format(date);
}

/** Basis points as a percentage: 150 -> `1,5 %` / `1.5%`. */
export function formatBps(bps: number, lang: Language): string {
  const pct = (bps / 100).toLocaleString(lang === 'ru' ? 'ru-RU' : 'en-GB', { maximumFractionDigits: 2 });
  return lang === 'ru' ? `${pct}${NBSP}%` : `${pct}%`;
}
