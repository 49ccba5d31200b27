import { createLinkBody, listLinksQuery } from './http';
import { returnUrlProblem } from './fields';
import { parseJsonPreservingNumbers } from './json';

const parseBody = (json: string) => createLinkBody.safeParse(parseJsonPreservingNumbers(json));

describe('createLinkBody', () => {
  it('turns a JSON number amount into kopecks judged by its source text', () => {
    const r = parseBody('{"shop_id": 7, "amount": 10.10}');
    expect(r.success && r.data.amount).toBe(1010);
  });

  it.each(['0', '-1', '10.005', '"1e2"', '1e2', '0.1e1', '"  5"', '1e400', 'true', 'null', '"abc"', '10.00000000000000000001'])(
    'rejects amount %s',
    (amount) => {
      const r = parseBody(`{"shop_id": 7, "amount": ${amount}}`);
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.path).toEqual(['amount']);
    },
  );

  it('names unknown fields', () => {
    const r = parseBody('{"shop_id": 7, "amount": "1.00", "amout": 1}');
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain('amout');
  });

  it('counts order_id length in code points, not UTF-16 units', () => {
    const emoji128 = '😀'.repeat(128);
    expect(parseBody(JSON.stringify({ shop_id: 1, amount: '1', order_id: emoji128 })).success).toBe(true);
    expect(parseBody(JSON.stringify({ shop_id: 1, amount: '1', order_id: emoji128 + 'x' })).success).toBe(false);
  });

  it('accepts currency RUB only', () => {
    expect(parseBody('{"shop_id":1,"amount":"1","currency":"RUB"}').success).toBe(true);
    expect(parseBody('{"shop_id":1,"amount":"1","currency":"USD"}').success).toBe(false);
  });

  it('rejects a fractional or huge shop_id', () => {
    expect(parseBody('{"shop_id":1.5,"amount":"1"}').success).toBe(false);
    expect(parseBody('{"shop_id":1e3,"amount":"1"}').success).toBe(false);
    expect(parseBody('{"shop_id":99999999999999999999,"amount":"1"}').success).toBe(false);
  });

  it('bounds expires_in_minutes to 1..43200', () => {
    expect(parseBody('{"shop_id":1,"amount":"1","expires_in_minutes":43200}').success).toBe(true);
    expect(parseBody('{"shop_id":1,"amount":"1","expires_in_minutes":0}').success).toBe(false);
    expect(parseBody('{"shop_id":1,"amount":"1","expires_in_minutes":43201}').success).toBe(false);
  });
});

describe('parseJsonPreservingNumbers', () => {
  it('refuses duplicate keys', () => {
    expect(() => parseJsonPreservingNumbers('{"amount": 1, "amount": 2}')).toThrow();
  });
});

describe('listLinksQuery', () => {
  it.each([{ limit: '0' }, { limit: '101' }, { limit: '1.5' }, { status: 'done' }, { shop_id: '-1' }, { page: '2' }])('rejects %j', (q) => {
    expect(listLinksQuery.safeParse(q).success).toBe(false);
  });

  it('reads limit as a number', () => {
    expect(listLinksQuery.parse({ limit: '100' }).limit).toBe(100);
  });
});

describe('return_url', () => {
  const withUrl = (url: unknown) => parseBody(JSON.stringify({ shop_id: 1, amount: '1', return_url: url }));
  const problem = (url: unknown) => withUrl(url).error?.issues.find((i) => i.path[0] === 'return_url')?.message;

  it('takes an absolute https URL, an http one (where the deployment allows it, checked by returnUrlProblem), null or none', () => {
    expect(withUrl('https://shop.example/thanks?order=42#top').success).toBe(true);
    expect(withUrl('http://localhost:3000/back').success).toBe(true);
    expect(withUrl(null).success).toBe(true);
    expect(parseBody('{"shop_id":1,"amount":"1"}').success).toBe(true);
  });

  it('takes 2048 code points and refuses 2049', () => {
    const at = (n: number) => `https://s/${'😀'.repeat(n - 'https://s/'.length)}`;
    expect(withUrl(at(2048)).success).toBe(true);
    expect(problem(at(2049))).toBe('must be at most 2048 characters');
  });

  it.each([
    ['a relative URL', '/thanks', 'must be an absolute URL'],
    ['a scheme-relative URL', '//shop.example/thanks', 'must be an absolute URL'],
    ['javascript:', 'javascript:alert(1)', 'must be an https or http URL'],
    ['data:', 'data:text/html,<script>alert(1)</script>', 'must be an https or http URL'],
    ['ftp:', 'ftp://shop.example/', 'must be an https or http URL'],
    ['a user name', 'https://user@shop.example/', 'must not contain a user name or password'],
    ['a password', 'https://:secret@shop.example/', 'must not contain a user name or password'],
    ['a control character', 'https://shop.example/\u0000', 'must not contain control characters'],
    ['a tab inside', 'https://shop.\texample/', 'must not contain control characters'],
    ['a bidi override', 'https://shop.example/\u202E', 'must not contain bidirectional override or isolate characters'],
    ['a leading space', ' https://shop.example/', 'must not begin or end with spaces'],
    ['an empty string', '', 'must not be empty'],
    ['a number', 42, 'Invalid input: expected string, received number'],
  ])('refuses %s, naming return_url', (_what, url, message) => {
    expect(withUrl(url).success).toBe(false);
    expect(problem(url)).toBe(message);
  });
});

describe('returnUrlProblem', () => {
  it('refuses http where the deployment allows https only', () => {
    expect(returnUrlProblem('http://shop.example/', { allowHttp: false })).toBe('must be an https URL');
    expect(returnUrlProblem('HTTPS://Shop.Example/', { allowHttp: false })).toBeNull();
    expect(returnUrlProblem('javascript:alert(1)', { allowHttp: false })).toBe('must be an https URL');
  });
});
