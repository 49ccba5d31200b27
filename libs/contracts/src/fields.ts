import { z } from 'zod';
import { FEE_PAYERS, MAX_AMOUNT_KOPECKS, parseAmountText, type FeePayer } from '@pl/money';
import { JsonNumberText } from './json';
import { freeText, identifierText, textProblem } from './text';

/**
 * `amount` as the client sent it: a JSON number (judged by its source text) or a decimal string.
 * Produces integer kopecks.
 */
export const amountInput = z
  .union([z.number(), z.string(), z.instanceof(JsonNumberText)], {
    // zod's own message would name the JsonNumberText class.
    error: (issue) => (issue.input === undefined ? 'is required' : 'must be a number or a decimal string'),
  })
  .transform((value, ctx) => {
    const text = value instanceof JsonNumberText ? value.source : typeof value === 'number' ? String(value) : value;
    const kopecks = parseAmountText(text);
    if (kopecks === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be greater than 0 and at most 99999999.99, with at most 2 decimal places',
      });
      return z.NEVER;
    }
    return kopecks;
  });

export const positiveId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
export const uuid = z.uuid();
export const linkStatus = z.enum(['pending', 'paid', 'expired', 'canceled', 'failed']);
/**
 * Why a link failed (docs/product-decisions.md): the provider failed the payment (`provider_failed`), less than asked
 * arrived for good (`underpaid`), or what arrived is held for AML checks (`aml_hold`).
 */
export const failureReason = z.enum(['provider_failed', 'underpaid', 'aml_hold']);
export type FailureReason = z.infer<typeof failureReason>;
export type LinkStatus = z.infer<typeof linkStatus>;
export const feePayer = z.enum(FEE_PAYERS);
/** Re-exported so services that know only the contracts name the fee payer by the same type the fee math uses. */
export type { FeePayer };
export const shopStatus = z.enum(['approved', 'pending', 'rejected', 'blocked']);
export type ShopStatus = z.infer<typeof shopStatus>;
export const bps = z.number().int().min(0).max(10000);
/** Dates on the wire: RFC 3339 with the +03:00 offset. */
export const moscowDate = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?\+03:00$/);
export const moneyText = z.string().regex(/^-?\d+\.\d{2}$/);

/**
 * The bounds of a link's fields, one set for every wire that carries them (the HTTP body and query, the bus
 * command the gateway sends links), so the gateway can never accept what links then refuses.
 */
export const ORDER_ID_MAX_LENGTH = 128;
export const DESCRIPTION_MAX_LENGTH = 1024;
/** 30 days. */
export const EXPIRES_IN_MINUTES_MAX = 43_200;
export const PAGE_LIMIT_MAX = 100;
/** Cursors are opaque, but a list request must still fit a bus message whatever a client sends. */
export const CURSOR_MAX_LENGTH = 512;

export const linkOrderId = identifierText(ORDER_ID_MAX_LENGTH);
export const linkDescription = freeText(DESCRIPTION_MAX_LENGTH);
export const expiresInMinutes = z.number().int().min(1).max(EXPIRES_IN_MINUTES_MAX);
/** An amount once parsed: what {@link amountInput} produces. */
export const amountKopecks = z.number().int().min(1).max(Number(MAX_AMOUNT_KOPECKS));

/** The longest `return_url` a link keeps (docs/product-decisions.md, "Returning the buyer to the shop"). */
export const RETURN_URL_MAX_LENGTH = 2048;

/**
 * What is wrong with a `return_url`, in words a client can act on; null when it passes. The text rule first (no
 * control characters, at most 2048 code points), then the WHATWG URL parser, as a browser reads the link: absolute,
 * `https` (or `http` where `allowHttp`, a deployment that allows private webhook targets), no user name or password.
 * Leading or trailing spaces are refused rather than trimmed: the parser would drop them, the link would keep them.
 */
export function returnUrlProblem(value: string, options: { allowHttp: boolean }): string | null {
  const problem = textProblem(value, { max: RETURN_URL_MAX_LENGTH });
  if (problem !== null) return problem;
  if (value.trim() !== value) return 'must not begin or end with spaces';
  const url = URL.parse(value);
  if (url === null) return 'must be an absolute URL';
  const schemes = options.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return options.allowHttp ? 'must be an https or http URL' : 'must be an https URL';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  return null;
}

/**
 * A `return_url` as any deployment may take it (https or http); a deployment that allows only https checks
 * {@link returnUrlProblem} with `allowHttp: false` on top (the gateway does, from its configuration).
 */
export const returnUrl = z.string().superRefine((value, ctx) => {
  const problem = returnUrlProblem(value, { allowHttp: true });
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
});

/** `limit` (1..100) and `cursor` of a paged list's query string, where every value arrives as text. */
export const pageQueryFields = {
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(1).max(PAGE_LIMIT_MAX))
    .optional(),
  cursor: identifierText(CURSOR_MAX_LENGTH).optional(),
};
