import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertDocumented, problemsOf, type ObservedAnswer } from './openapi-validator';

/** The validator every black-box call goes through: it passes what the document says, and fails what it does not. */

const doc = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document is edited by path below
const link = doc.paths['/merchant/v1/payment-links'].post.responses['201'].content['application/json'].example as Record<string, unknown>;

const answer = (over: Partial<ObservedAnswer>): ObservedAnswer => ({
  method: 'POST',
  path: '/merchant/v1/payment-links',
  status: 201,
  contentType: 'application/json; charset=utf-8',
  text: JSON.stringify(link),
  body: link,
  ...over,
});
const error = (code: string) => ({ error: { code, message: 'Something' } });

describe('the OpenAPI answer validator', () => {
  it('passes documented answers: a link, a listed error code, an empty 204, a page, a 404 of no operation', () => {
    expect(problemsOf(answer({}))).toEqual([]);
    expect(problemsOf(answer({ status: 400, body: error('common.err.invalid_json') }))).toEqual([]);
    expect(problemsOf(answer({ method: 'POST', path: '/api/v1/auth/logout', status: 204, contentType: null, text: '', body: undefined }))).toEqual(
      [],
    );
    expect(
      problemsOf(answer({ method: 'GET', path: '/p/assets/checkout.css', status: 200, contentType: 'text/css', text: 'a{}', body: undefined })),
    ).toEqual([]);
    expect(problemsOf(answer({ method: 'GET', path: '/nowhere', status: 404, body: error('common.err.not_found') }))).toEqual([]);
    expect(
      problemsOf(answer({ method: 'DELETE', path: '/merchant/v1/payment-links', status: 405, body: error('common.err.method_not_allowed') })),
    ).toEqual([]);
  });

  it('fails a field of the wrong type, a missing or extra member, naming the operation, status and path', () => {
    const [problem] = problemsOf(answer({ body: { ...link, amount: 1500 } }));
    expect(problem).toContain('merchantCreatePaymentLink (POST /merchant/v1/payment-links) 201');
    expect(problem).toContain('/amount must be string');
    const { amount: _, ...noAmount } = link;
    expect(problemsOf(answer({ body: noAmount }))[0]).toContain("must have required property 'amount'");
    expect(problemsOf(answer({ body: { ...link, secret: 'x' } }))[0]).toContain('must NOT have additional properties');
  });

  it('fails a status the operation does not document, a code it does not list for that status, a wrong media type', () => {
    expect(problemsOf(answer({ status: 418 }))[0]).toMatch(/status 418 is not documented/);
    expect(problemsOf(answer({ status: 400, body: error('shop.err.no_webhook_url') }))[0]).toContain(
      '/error/code must be equal to one of the allowed values',
    );
    expect(problemsOf(answer({ contentType: 'text/html' }))[0]).toMatch(/media type text\/html is not documented/);
    expect(problemsOf(answer({ method: 'POST', path: '/api/v1/auth/logout', status: 204, text: '{}' }))[0]).toMatch(/documented without a body/);
    expect(problemsOf(answer({ method: 'GET', path: '/nowhere', status: 200 }))[0]).toMatch(/no operation for GET \/nowhere/);
  });

  it('fails when the document changes a field type the service still answers (the document and the service drift)', () => {
    const altered = structuredClone(doc);
    altered.components.schemas.PaymentLink.properties.amount = { type: 'number' };
    expect(problemsOf(answer({}), altered)[0]).toContain('/amount must be number');
  });

  it('throws with the problems, so the test that received the answer fails', () => {
    expect(() => assertDocumented(answer({ status: 418 }))).toThrow(
      /POST \/merchant\/v1\/payment-links does not match .*openapi\.json:\n.*status 418/,
    );
  });
});
