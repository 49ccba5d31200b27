/** Languages the checkout page speaks; Russian first, since most buyers pay in roubles from Russia. */
export const LANGUAGES = ['ru', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'ru';
/** Cookie that remembers the buyer's explicit choice from the language switch. */
export const LANGUAGE_COOKIE = 'checkout_lang';

export const isLanguage = (value: unknown): value is Language => value === 'ru' || value === 'en';

interface Weighted {
  language: string;
  q: number;
  order: number;
}

const Q_VALUE = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i;

/**
 * The first supported language of an `Accept-Language` header by weight (RFC 9110 12.5.4), ties kept
 * in header order. Only the primary subtag counts (`en-GB` is English); `q=0` means "not this one";
 * a malformed entry is skipped rather than failing the whole header.
 */
export function fromAcceptLanguage(header: string | undefined): Language | null {
  if (!header) return null;
  const entries: Weighted[] = [];
  header.split(',').forEach((part, order) => {
    const [tag, ...params] = part.trim().split(';').map((s) => s.trim());
    if (!tag || !/^([a-z]{1,8}(-[a-z0-9]{1,8})*|\*)$/i.test(tag)) return;
    let q = 1;
    for (const param of params) {
      if (!/^q=/i.test(param)) continue;
      if (!Q_VALUE.test(param)) return;
      q = Number(param.slice(2));
    }
    if (q > 0) entries.push({ language: tag.split('-')[0]!.toLowerCase(), q, order });
  });
  entries.sort((a, b) => b.q - a.q || a.order - b.order);
  for (const entry of entries) {
    if (isLanguage(entry.language)) return entry.language;
  }
  return null;
}

export interface LanguageSources {
  /** `?lang=` of this request: the switch. */
  query: unknown;
  /** The remembered choice. */
  cookie: string | undefined;
  acceptLanguage: string | undefined;
}

/** An explicit choice (the switch, then the remembered one) beats the browser's preference. */
export function chooseLanguage(sources: LanguageSources): Language {
  if (isLanguage(sources.query)) return sources.query;
  if (isLanguage(sources.cookie)) return sources.cookie;
  return fromAcceptLanguage(sources.acceptLanguage) ?? DEFAULT_LANGUAGE;
}
