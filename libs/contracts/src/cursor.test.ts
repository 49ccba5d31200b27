import fc from 'fast-check';
import { AppError } from '@pl/errors';
import { cursorBigint, cursorCodec, cursorUuid } from './cursor';

// The two lists' cursors: links by (created_at, id), webhook deliveries by their sequence number.
const { encode: encodeCursor, decode: decodeCursor } = cursorCodec({ createdAtMicros: cursorBigint(18), id: cursorUuid });
const sequenceCursor = cursorCodec({ seq: cursorBigint(19) });

const ID = '0b9f7d1e-4c1a-4f3e-9a55-2d6f8e1c0a77';

const expectMalformed = (text: string): void => {
  let caught: unknown;
  try {
    decodeCursor(text);
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(AppError);
  expect((caught as AppError).code).toBe('common.err.validation_failed');
  expect((caught as AppError).message).toBe('cursor is malformed');
};

describe('cursor codec', () => {
  it('round-trips microsecond timestamps and ids', () => {
    const cursor = { createdAtMicros: 1_795_000_000_123_456n, id: ID };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
  });

  it('is a base64url string without padding', () => {
    expect(encodeCursor({ createdAtMicros: 1n, id: ID })).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('round-trips any position', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 17n }), fc.uuid(), (micros, id) => {
        expect(decodeCursor(encodeCursor({ createdAtMicros: micros, id }))).toEqual({ createdAtMicros: micros, id });
      }),
    );
  });

  const b64 = (s: string): string => Buffer.from(s).toString('base64url');

  it.each([
    ['an empty string', ''],
    ['characters outside base64url', 'abc+/='],
    ['padding', `${b64(`v1:1:${ID}`)}=`],
    ['plain text', 'page-2'],
    ['an unknown version', b64(`v2:1:${ID}`)],
    ['a negative time', b64(`v1:-1:${ID}`)],
    ['a leading zero', b64(`v1:01:${ID}`)],
    ['a fractional time', b64(`v1:1.5:${ID}`)],
    ['a time with too many digits', b64(`v1:1${'0'.repeat(18)}:${ID}`)],
    ['an id that is not a uuid', b64('v1:1:42')],
    ['an upper-case id', b64(`v1:1:${ID.toUpperCase()}`)],
    ['trailing data', b64(`v1:1:${ID}:x`)],
    ['a missing id', b64('v1:1')],
  ])('rejects %s as malformed', (_label, text) => {
    expectMalformed(text);
  });

  it('never throws anything but a validation error on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          decodeCursor(text);
        } catch (e) {
          expect((e as AppError).code).toBe('common.err.validation_failed');
        }
      }),
    );
  });

  it('round-trips a single-field position', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), (seq) => {
        expect(sequenceCursor.decode(sequenceCursor.encode({ seq }))).toEqual({ seq });
      }),
    );
  });

  it("rejects a number past Postgres' bigint as malformed, never a query the database refuses", () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    expect(sequenceCursor.decode(b64('v1:9223372036854775807'))).toEqual({ seq: 2n ** 63n - 1n });
    for (const seq of ['9223372036854775808', '9999999999999999999']) {
      expect(() => sequenceCursor.decode(b64(`v1:${seq}`))).toThrow('cursor is malformed');
    }
  });

  it('rejects a cursor of another shape as malformed', () => {
    expect(() => sequenceCursor.decode(encodeCursor({ createdAtMicros: 1n, id: ID }))).toThrow('cursor is malformed');
    expect(() => decodeCursor(sequenceCursor.encode({ seq: 1n }))).toThrow('cursor is malformed');
  });
});
