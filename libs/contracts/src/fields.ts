import { z } from 'zod';
import { parseAmountText } from '@pl/money';
import { JsonNumberText } from './json';

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
export type LinkStatus = z.infer<typeof linkStatus>;
export const feePayer = z.enum(['merchant', 'client', 'split']);
export const shopStatus = z.enum(['approved', 'pending', 'rejected', 'blocked']);
export type ShopStatus = z.infer<typeof shopStatus>;
export const bps = z.number().int().min(0).max(10000);
/** Dates on the wire: RFC 3339 with the +03:00 offset. */
export const moscowDate = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?\+03:00$/);
export const moneyText = z.string().regex(/^-?\d+\.\d{2}$/);
