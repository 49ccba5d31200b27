import * as errors from './index';
import { AppError, ERROR_CATALOGUE, HTTP_STATUS_BY_KIND, httpStatusOf, isErrorCode } from './index';

/** Every factory of index.ts, called with arguments where it takes some. */
const made: AppError[] = Object.entries(errors)
  .filter(([name, value]) => typeof value === 'function' && !['AppError', 'isAppError', 'isErrorCode', 'httpStatusOf'].includes(name))
  .map(([, factory]) => (factory as (...args: unknown[]) => AppError)('x', []));

describe('the error catalogue', () => {
  it("gives every factory's error a catalogue code and the kind the catalogue gives that code", () => {
    expect(made.length).toBeGreaterThanOrEqual(20);
    for (const e of made) {
      expect(e).toBeInstanceOf(AppError);
      expect(isErrorCode(e.code)).toBe(true);
      expect({ code: e.code, kind: e.kind }).toEqual({ code: e.code, kind: ERROR_CATALOGUE[e.code].kind });
    }
  });

  it('has a factory for every code but the ones raised in one place only', () => {
    const byFactory = new Set(made.map((e) => e.code));
    const elsewhere = Object.keys(ERROR_CATALOGUE).filter((c) => !byFactory.has(c as keyof typeof ERROR_CATALOGUE));
    // account.err.email_taken: the account repository; common.err.invalid_config: the operators' CLI.
    expect(elsewhere.sort()).toEqual(['account.err.email_taken', 'common.err.invalid_config']);
  });

  it('maps a code to its HTTP status through its kind, and says when it happens', () => {
    expect(httpStatusOf('common.err.idempotency_conflict')).toBe(409);
    expect(httpStatusOf('shop.err.no_webhook_url')).toBe(422);
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(HTTP_STATUS_BY_KIND[entry.kind]).toBeGreaterThanOrEqual(400);
      expect({ code, when: entry.when.length > 20 }).toEqual({ code, when: true });
    }
  });

  it('turns a code from another process that the catalogue does not hold into an internal error', () => {
    const wire = { kind: 'conflict' as const, code: 'made.err.up', message: 'no such code' };
    expect(AppError.fromWire(wire).toWire()).toEqual({ kind: 'internal', code: 'common.err.internal', message: 'no such code' });
    const known = {
      kind: 'validation' as const,
      code: 'common.err.validation_failed',
      message: 'bad',
      details: [{ field: 'a', code: 'custom', message: 'm' }],
    };
    expect(AppError.fromWire(known).toWire()).toEqual(known);
  });
});
