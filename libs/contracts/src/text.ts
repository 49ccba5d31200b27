import { z } from 'zod';

/**
 * The one rule for text the service accepts, whoever sends it (HTTP bodies, queries, login, NATS commands,
 * the admin CLI). Text that breaks it is refused, never cleaned: a changed value would be stored and sent
 * back (and in webhooks) as something the merchant never wrote.
 *
 * - well-formed Unicode: no lone UTF-16 surrogate (JSON's `"\ud800"`), which storage would turn into U+FFFD;
 * - no control characters (C0, DEL, C1; NUL among them, which Postgres refuses), except tab, line feed and
 *   carriage return in free text;
 * - no bidirectional override or isolate controls (U+202A..U+202E, U+2066..U+2069), which can make a text
 *   shown to a buyer read differently from what it says;
 * - never empty: an optional text is left out (or `null`), not sent as `""`;
 * - at most `max` Unicode code points, the unit the decisions count lengths in.
 */
export interface TextRule {
  max: number;
  /** Shortest allowed length in code points; 1 unless a field needs more. */
  min?: number;
  /** Free text (a description) may hold tab, line feed and carriage return. */
  lineBreaks?: boolean;
}

// In a `u` regex a surrogate pair is one code point, so `\p{Cs}` finds only the lone ones.
const LONE_SURROGATE = /\p{Cs}/u;
const CONTROL = /\p{Cc}/u;
const CONTROL_BUT_LINE_BREAKS = /[^\P{Cc}\t\n\r]/u;
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;

/** Counts code points (what a reader sees as characters, near enough), not UTF-16 units. */
function codePoints(s: string): number {
  let count = 0;
  for (const _ of s) count += 1;
  return count;
}

/** What is wrong with `text` under `rule`, in words a client can act on; null when it passes. */
export function textProblem(text: string, rule: TextRule): string | null {
  const min = rule.min ?? 1;
  if (text.length === 0) return 'must not be empty';
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode (no lone surrogates)';
  if ((rule.lineBreaks ? CONTROL_BUT_LINE_BREAKS : CONTROL).test(text)) {
    return rule.lineBreaks
      ? 'must not contain control characters other than tab, line feed and carriage return'
      : 'must not contain control characters';
  }
  if (BIDI_CONTROL.test(text)) return 'must not contain bidirectional override or isolate characters';
  const length = codePoints(text);
  if (length < min) return `must be at least ${min} characters`;
  if (length > rule.max) return `must be at most ${rule.max} characters`;
  return null;
}

/** A string that passes {@link textProblem}; one issue per field, the first problem found. */
export const text = (rule: TextRule) =>
  z.string().superRefine((value, ctx) => {
    const problem = textProblem(value, rule);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

/** One line of text: identifiers, names, emails, cursors (order_id, shop name, login email). */
export const identifierText = (max: number, min = 1) => text({ max, min });

/**
 * Characters that show nothing: white space, format characters (zero-width space, joiners, the byte-order mark),
 * every default-ignorable code point (Hangul fillers U+115F, U+1160, U+3164, U+FFA0; the soft hyphen) and the
 * Braille blank. A name made only of these reads as no name at all.
 */
const INVISIBLE = /[\p{White_Space}\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]/gu;

/** Whether `text` shows at least one character. */
const hasVisibleCharacter = (text: string): boolean => text.replace(INVISIBLE, '').length > 0;

/** A name shown to buyers and in lists (a shop's): one line of text with at least one visible character. */
export const visibleName = (max: number) => identifierText(max).refine(hasVisibleCharacter, { message: 'must not be blank' });

/** Text a person writes for a buyer to read: tab, line feed and carriage return allowed (description). */
export const freeText = (max: number) => text({ max, lineBreaks: true });
