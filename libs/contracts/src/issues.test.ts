import { AppError } from '@pl/errors';
import { createLinkBody } from './http';
import { parseOrThrow } from './issues';
import { parseJsonPreservingNumbers } from './json';

const problemsOf = (json: string): AppError => {
  try {
    parseOrThrow(createLinkBody, parseJsonPreservingNumbers(json), 'Request body');
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a validation error');
};

describe('zod issues as the one details shape', () => {
  it('names no type in any message, even where a JSON number is kept as its source text', () => {
    for (const json of ['{"amount":"1","order_id":1.5}', '{"amount":{"a":1}}', '{"amount":true}', '{"amount":"1","description":1e400}']) {
      const error = problemsOf(json);
      expect(JSON.stringify(error.toWire())).not.toMatch(/JsonNumberText|received/);
    }
    expect(problemsOf('{"amount":"1","order_id":1.5}').details).toEqual([{ field: 'order_id', code: 'invalid_type', message: 'must be a string' }]);
    expect(problemsOf('{"amount":true}').details).toEqual([
      { field: 'amount', code: 'invalid_union', message: 'must be a number or a decimal string' },
    ]);
  });

  it('lists each unknown field as a field of its own, and a missing one as required', () => {
    const error = problemsOf('{"amout":1,"x":2}');
    expect(error.details).toEqual([
      { field: 'amount', code: 'invalid_union', message: 'is required' },
      { field: 'amout', code: 'unrecognized_keys', message: 'is not a known field' },
      { field: 'x', code: 'unrecognized_keys', message: 'is not a known field' },
    ]);
    expect(error.message).toBe('Request body is invalid: amount: is required; amout: is not a known field; x: is not a known field');
  });

  it('names a text that breaks the text rule, with the rule it breaks', () => {
    expect(problemsOf(String.raw`{"amount":"1","order_id":"a\ud800"}`).details).toEqual([
      { field: 'order_id', code: 'custom', message: 'must be well-formed Unicode (no lone surrogates)' },
    ]);
  });
});
