import type { Request } from 'express';

/** Languages the checkout page speaks; Russian first, since most buyers pay in roubles from Russia. */
export const LANGUAGES = ['ru', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
const DEFAULT_LANGUAGE: Language = 'ru';
/** Cookie that remembers the buyer's explicit choice from the language switch. */
export const LANGUAGE_COOKIE = 'checkout_lang';

export const isLanguage = (value: unknown): value is Language => value === 'ru' || value === 'en';

/**
 * The buyer's preferred supported language by `Accept-Language` (RFC 9110 12.5.4), as Express's
 * `req.acceptsLanguages` (negotiator) judges it: weights, `q=0` as "not this one", `en-GB` counting as English.
 * Null when the header names none of ours; no header, or `*`, accepts our first (Russian).
 */
export function fromAcceptLanguage(req: Pick<Request, 'acceptsLanguages'>): Language | null {
  const match: unknown = req.acceptsLanguages(...LANGUAGES);
  return isLanguage(match) ? match : null;
}

export interface LanguageSources {
  /** `?lang=` of this request: the switch. */
  query: unknown;
  /** The remembered choice. */
  cookie: string | undefined;
  /** The browser's preference ({@link fromAcceptLanguage}). */
  acceptLanguage: Language | null;
}

/** An explicit choice (the switch, then the remembered one) beats the browser's preference. */
export function chooseLanguage(sources: LanguageSources): Language {
  if (isLanguage(sources.query)) return sources.query;
  if (isLanguage(sources.cookie)) return sources.cookie;
  return sources.acceptLanguage ?? DEFAULT_LANGUAGE;
}
