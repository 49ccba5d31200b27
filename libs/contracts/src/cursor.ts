import { invalidField } from '@pl/errors';

/** One field of a cursor's position: how it is written and the exact text that reads back as it. */
export interface CursorField<T> {
  /** A regular expression (no anchors, no capturing groups) matching exactly the texts `format` produces. */
  readonly pattern: string;
  readonly format: (value: T) => string;
  readonly parse: (text: string) => T;
}

const malformedCursor = () => invalidField('cursor', 'is malformed');

/** The largest value of Postgres' bigint, where every cursor's numbers end up. */
const PG_BIGINT_MAX = 9223372036854775807n;

/**
 * A non-negative integer of at most `maxDigits` decimal digits, without leading zeros (a timestamp, a sequence),
 * within bigint: 19 digits reach past its maximum, and such a cursor is malformed, not a query Postgres refuses.
 */
export const cursorBigint = (maxDigits: number): CursorField<bigint> => ({
  pattern: `(?:0|[1-9][0-9]{0,${String(maxDigits - 1)}})`,
  format: (value) => value.toString(),
  parse: (text) => {
    const value = BigInt(text);
    if (value > PG_BIGINT_MAX) throw malformedCursor();
    return value;
  },
});

/** A row id as Postgres prints a uuid: lower-case, hyphenated. */
export const cursorUuid: CursorField<string> = {
  pattern: '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  format: (value) => value,
  parse: (text) => text,
};

export interface CursorCodec<P> {
  /** Opaque to clients: base64url (no padding) of `v1:<field>:<field>…` in the order the fields were given. */
  readonly encode: (position: P) => string;
  /** The position a cursor names; anything this codec did not produce is a 400 on `cursor`. */
  readonly decode: (text: string) => P;
}

const VERSION = 'v1';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * A codec for the cursors of a keyset-paginated list, whose position is the values of `fields` (in their
 * declaration order). Decoding is strict, so a cursor is either one this codec wrote or a validation error.
 */
export function cursorCodec<P extends object>(fields: { readonly [K in keyof P]: CursorField<P[K]> }): CursorCodec<P> {
  const entries = Object.entries(fields) as [keyof P & string, CursorField<unknown>][];
  const body = new RegExp(`^${VERSION}${entries.map(([, f]) => `:(${f.pattern})`).join('')}$`);
  return {
    encode: (position) => Buffer.from([VERSION, ...entries.map(([name, f]) => f.format(position[name]))].join(':'), 'utf8').toString('base64url'),
    decode: (text) => {
      if (!BASE64URL.test(text)) throw malformedCursor();
      const decoded = Buffer.from(text, 'base64url');
      // Node's decoder skips junk silently; re-encoding must give the input back for it to be ours.
      if (decoded.toString('base64url') !== text) throw malformedCursor();
      const m = body.exec(decoded.toString('utf8'));
      if (!m) throw malformedCursor();
      const position: Partial<P> = {};
      entries.forEach(([name, f], i) => {
        position[name] = f.parse(m[i + 1] ?? '') as P[typeof name];
      });
      return position as P;
    },
  };
}
