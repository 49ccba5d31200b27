import { formatKopecks, parseAmountText } from '@pl/money';
import type { Language } from './language';

const NBSP = '\u00a0';
const MONEY = /^(\d+)\.(\d{2})$/;

/** Thousands groups of a digit string, without going through floating point. */
const group = (digits: string, separator: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, separator);

/** A rouble amount from its wire text (`"1010.00"`): `1 010,00 ₽` in Russian, `1,010.00 ₽` in English. */
export function formatRub(text: string, lang: Language): string {
  const m = MONEY.exec(text);
  if (!m) return `${text}${NBSP}₽`;
  const [, units = '0', cents = '00'] = m;
  return lang === 'ru' ? `${group(units, NBSP)},${cents}${NBSP}₽` : `${group(units, ',')}.${cents}${NBSP}₽`;
}

/**
 * What the buyer pays on top of the link's amount (their share of the fee), as wire text, or null
 * when they pay none of it. Integer kopecks, so `1010.10 - 1000.00` is exactly `10.10`.
 */
export function buyerFee(payerAmount: string, amount: string): string | null {
  const payer = parseAmountText(payerAmount);
  const base = parseAmountText(amount);
  if (payer === null || base === null || payer <= base) return null;
  return formatKopecks(payer - base);
}

/**
 * A crypto amount exactly as the provider gave it: the buyer copies it into a wallet, so no
 * locale separators and no rounding.
 */
export const formatCrypto = (amount: string, currency: string): string => `${amount}${NBSP}${currency}`;

const dateFormats: Record<Language, Intl.DateTimeFormat> = {
  ru: new Intl.DateTimeFormat('ru-RU', { timeZone: 'Europe/Moscow', dateStyle: 'long', timeStyle: 'short' }),
  en: new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Moscow', dateStyle: 'long', timeStyle: 'short' }),
};
const MOSCOW_SUFFIX: Record<Language, string> = { ru: 'по московскому времени', en: 'Moscow time' };

/** A wire date (RFC 3339, +03:00) as the buyer reads it, always in Moscow time since that is what the shop shows. */
export function formatDateTime(iso: string, lang: Language): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${dateFormats[lang].format(date)} (${MOSCOW_SUFFIX[lang]})`;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * Time left as `HH:MM:SS`, with a day count in front past 24 hours (links live up to 30 days).
 * Never negative: a link past its time shows zeros until the page learns it expired.
 * The page's script has the same function (assets/checkout.js) for the ticking; keep them alike.
 */
export function formatRemaining(ms: number, lang: Language): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(total / 86_400);
  const clock = `${pad(Math.floor((total % 86_400) / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
  return days > 0 ? `${days}${NBSP}${lang === 'ru' ? 'д' : 'd'} ${clock}` : clock;
}

/** Human names of the networks; the wire string stays the source of truth (see CRYPTO_NETWORKS). */
const NETWORK_LABELS: Record<string, { coin: string; chain: string }> = {
  'USDT-TRC20': { coin: 'USDT', chain: 'TRC-20 (Tron)' },
  'USDT-ERC20': { coin: 'USDT', chain: 'ERC-20 (Ethereum)' },
  'USDT-TON': { coin: 'USDT', chain: 'TON' },
  'BTC-BTC': { coin: 'Bitcoin', chain: 'BTC' },
  'ETH-ETH': { coin: 'Ethereum', chain: 'ETH' },
  'TON-TON': { coin: 'Toncoin', chain: 'TON' },
};

export function networkLabel(network: string): { coin: string; chain: string } {
  return NETWORK_LABELS[network] ?? { coin: network, chain: network };
}
