import { randomUUID } from 'node:crypto';
import { assertDocumented } from '../support/openapi-validator';
import { sandboxPaymentId, signProviderBody, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * Security headers on every kind of response the gateway gives (success, client error, server error,
 * JSON, HTML, static asset) and no CORS at all: a browser page of another origin can neither read a
 * response nor get a preflight through. services/gateway/test/merchant-api.test.ts spot-checks one 404;
 * this is the route-by-route matrix.
 */

const ORIGIN = 'https://attacker.example';
const LOGIN_PER_IP = 3;

let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
let session: string;
let linkId: string;

beforeAll(async () => {
  // Fault proxies only for the 503 case; the login budget is shrunk so a 429 is cheap.
  sys = await startSystem({ faults: true, env: { RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: String(LOGIN_PER_IP) } });
  ({ merchant, shop } = await sys.merchantWithShop());
  session = await sys.login(merchant);
  const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '100.00' }, { headers: merchant.keys });
  if (created.status !== 201) throw new Error(`create link: ${created.status} ${created.text}`);
  linkId = created.body.id as string;
}, 30_000);
afterAll(() => sys?.stop());

interface Probe {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
}

const call = async (p: Probe): Promise<Response> => {
  const res = await fetch(sys.baseUrl + p.path, {
    method: p.method,
    headers: { Origin: ORIGIN, ...p.headers },
    body: p.body ?? null,
    redirect: 'manual',
  });
  // Every kind of answer is also one docs/openapi.json describes, as for every call through tests/support/http.ts.
  assertDocumented({
    method: p.method,
    path: p.path,
    status: res.status,
    contentType: res.headers.get('content-type'),
    text: await res.clone().text(),
  });
  return res;
};

const directives = (csp: string): Map<string, string[]> =>
  new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!.toLowerCase(), values]),
  );

/** Every rule a response breaks; empty when it carries the whole set and no CORS grant. */
function securityProblems(res: Response): string[] {
  const h = res.headers;
  const problems: string[] = [];
  const expectHeader = (name: string, ok: (v: string) => boolean): void => {
    const v = h.get(name);
    if (v === null || !ok(v)) problems.push(`${name}: ${v}`);
  };
  expectHeader('x-content-type-options', (v) => v === 'nosniff');
  expectHeader('referrer-policy', (v) => v === 'no-referrer');
  expectHeader('x-frame-options', (v) => v === 'SAMEORIGIN' || v === 'DENY');
  expectHeader('strict-transport-security', (v) => Number(/max-age=(\d+)/.exec(v)?.[1] ?? 0) >= 180 * 24 * 3600);
  expectHeader('cross-origin-resource-policy', (v) => v === 'same-origin');
  expectHeader('cross-origin-opener-policy', (v) => v === 'same-origin');
  expectHeader('x-request-id', (v) => v.length > 0);
  expectHeader('content-security-policy', (v) => {
    const csp = directives(v);
    const framing = csp.get('frame-ancestors')?.join(' ');
    if (framing !== "'none'" && framing !== "'self'") return false;
    if (!(h.get('content-type') ?? '').startsWith('text/html')) return true;
    // A page: nothing but its own script, and nothing inline.
    const script = csp.get('script-src') ?? csp.get('default-src') ?? [];
    return csp.get('default-src')?.join(' ') === "'none'" && script.join(' ') === "'self'";
  });
  if (h.get('x-powered-by') !== null) problems.push(`x-powered-by: ${h.get('x-powered-by')}`);
  h.forEach((v, name) => {
    if (name.startsWith('access-control-')) problems.push(`${name}: ${v}`);
  });
  return problems;
}

async function expectSecured(probes: Probe[]): Promise<void> {
  for (const p of probes) {
    const res = await call(p);
    await res.arrayBuffer();
    expect({ probe: p.name, status: res.status, problems: securityProblems(res) }).toEqual({ probe: p.name, status: p.status, problems: [] });
  }
}

const json = { 'content-type': 'application/json' };

describe('every response carries the security headers and no CORS grant', () => {
  it('merchant API (/merchant/v1), successes and refusals', async () => {
    await expectSecured([
      { name: 'list links', method: 'GET', path: '/merchant/v1/payment-links', headers: merchant.keys, status: 200 },
      { name: 'read a link', method: 'GET', path: `/merchant/v1/payment-links/${linkId}`, headers: merchant.keys, status: 200 },
      {
        name: 'create a link',
        method: 'POST',
        path: '/merchant/v1/payment-links',
        headers: { ...merchant.keys, ...json },
        body: JSON.stringify({ shop_id: shop.id, amount: '5.00' }),
        status: 201,
      },
      { name: 'delivery log', method: 'GET', path: '/merchant/v1/webhook-deliveries', headers: merchant.keys, status: 200 },
      { name: 'no credentials', method: 'GET', path: '/merchant/v1/payment-links', status: 401 },
      { name: 'wrong secret', method: 'GET', path: '/merchant/v1/payment-links', headers: { ...merchant.keys, 'X-API-Secret': 'nope' }, status: 401 },
    ]);
  });

  it('dashboard (/api/v1), by bearer token and by cookie, and the login', async () => {
    await expectSecured([
      { name: 'list by bearer', method: 'GET', path: '/api/v1/payment-links', headers: { Authorization: `Bearer ${session}` }, status: 200 },
      // A browser on another origin would send the cookie of a credentialed request; it still gets no grant to read the answer.
      { name: 'list by cookie', method: 'GET', path: '/api/v1/payment-links', headers: { Cookie: `sid=${session}` }, status: 200 },
      { name: 'no session', method: 'GET', path: '/api/v1/payment-links', status: 401 },
      {
        name: 'wrong login',
        method: 'POST',
        path: '/api/v1/auth/login',
        headers: json,
        body: JSON.stringify({ email: `nobody-${randomUUID()}@example.com`, password: 'wrong-password' }),
        status: 401,
      },
    ]);
  });

  it('cashier route', async () => {
    await expectSecured([
      {
        name: 'create by cashier key',
        method: 'POST',
        path: '/api/v1/merchant/payments',
        headers: { Authorization: `Bearer ${shop.cashierKey}`, ...json },
        body: JSON.stringify({ amount: '7.00' }),
        status: 201,
      },
      { name: 'no cashier key', method: 'POST', path: '/api/v1/merchant/payments', headers: json, body: '{}', status: 401 },
    ]);
  });

  it("buyer's checkout (/p): pages, fragment, JSON, assets and error pages", async () => {
    await expectSecured([
      { name: 'page', method: 'GET', path: `/p/${linkId}`, status: 200 },
      { name: 'panel fragment', method: 'GET', path: `/p/${linkId}/panel`, status: 200 },
      { name: 'status JSON', method: 'GET', path: `/p/${linkId}/status`, status: 200 },
      { name: 'select', method: 'POST', path: `/p/${linkId}/select`, headers: json, body: JSON.stringify({ method: 'sbp' }), status: 200 },
      { name: 'script asset', method: 'GET', path: '/p/assets/checkout.js', status: 200 },
      { name: 'style asset', method: 'GET', path: '/p/assets/checkout.css', status: 200 },
      { name: 'unknown link page', method: 'GET', path: `/p/${randomUUID()}`, status: 404 },
      { name: 'malformed link page', method: 'GET', path: '/p/not-a-link', status: 404 },
      { name: 'nothing under /p', method: 'GET', path: '/p/a/b/c', status: 404 },
      {
        name: 'select bad method',
        method: 'POST',
        path: `/p/${linkId}/select`,
        headers: json,
        body: JSON.stringify({ method: 'cash' }),
        status: 400,
      },
    ]);
    const page = await call({ name: 'page', method: 'GET', path: `/p/${linkId}`, status: 200 });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('provider callbacks (/callbacks/v1)', async () => {
    const other = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '9.00' }, { headers: merchant.keys });
    const body = JSON.stringify({ gateway_payment_id: sandboxPaymentId(other.body.id as string), status: 'paid' });
    await expectSecured([
      {
        name: 'signed callback',
        method: 'POST',
        path: '/callbacks/v1/sandbox',
        headers: { ...json, 'X-Provider-Signature': signProviderBody(body) },
        body,
        status: 200,
      },
      { name: 'unsigned callback', method: 'POST', path: '/callbacks/v1/sandbox', headers: json, body, status: 401 },
      { name: 'unknown provider', method: 'POST', path: '/callbacks/v1/nobody', headers: json, body, status: 404 },
    ]);
  });

  it('errors of the framework itself: 404, 405, 413, 415, malformed JSON, undecodable path', async () => {
    const create = { method: 'POST', path: '/merchant/v1/payment-links' };
    await expectSecured([
      { name: 'unknown route', method: 'GET', path: '/nope', status: 404 },
      { name: 'root', method: 'GET', path: '/', status: 404 },
      { name: 'wrong method', method: 'DELETE', path: '/merchant/v1/payment-links', headers: merchant.keys, status: 405 },
      { name: 'body too large', ...create, headers: { ...merchant.keys, ...json }, body: `{"description":"${'x'.repeat(70 * 1024)}"}`, status: 413 },
      { name: 'not JSON', ...create, headers: { ...merchant.keys, 'content-type': 'text/plain' }, body: 'amount=1', status: 415 },
      {
        name: 'form post',
        ...create,
        headers: { ...merchant.keys, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'amount=1',
        status: 415,
      },
      { name: 'malformed JSON', ...create, headers: { ...merchant.keys, ...json }, body: '{"amount":', status: 400 },
      { name: 'undecodable path', method: 'GET', path: '/merchant/v1/payment-links/%E0%A4%A', headers: merchant.keys, status: 404 },
    ]);
  });

  it('rate-limit refusals (429)', async () => {
    const attempt = (): Probe => ({
      name: 'login',
      method: 'POST',
      path: '/api/v1/auth/login',
      headers: json,
      body: JSON.stringify({ email: `nobody-${randomUUID()}@example.com`, password: 'wrong-password' }),
      status: 0,
    });
    let res: Response | undefined;
    // The budget is LOGIN_PER_IP a minute and earlier tests spent some: the next few attempts reach 429.
    for (let i = 0; i <= LOGIN_PER_IP && res?.status !== 429; i += 1) {
      res = await call(attempt());
      await res.arrayBuffer();
    }
    expect({ status: res!.status, problems: securityProblems(res!) }).toEqual({ status: 429, problems: [] });
  });
});

describe('no preflight gets through', () => {
  const preflight = (path: string): Probe => ({
    name: `OPTIONS ${path}`,
    method: 'OPTIONS',
    path,
    headers: { 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-api-key, x-api-secret, authorization, content-type' },
    status: 405,
  });

  it('answers OPTIONS on every route family with 405 (or 404 where nothing lives), the headers and no Access-Control-Allow-*', async () => {
    const paths = [
      '/merchant/v1/payment-links',
      `/merchant/v1/payment-links/${linkId}`,
      `/merchant/v1/payment-links/${linkId}/cancel`,
      '/merchant/v1/webhook-deliveries',
      '/api/v1/payment-links',
      '/api/v1/merchant/payments',
      '/api/v1/auth/login',
      `/p/${linkId}/select`,
      '/callbacks/v1/sandbox',
    ];
    await expectSecured([...paths.map(preflight), { ...preflight('/nope'), status: 404 }]);
    // The 405 is the documented wrong-method error, naming what the route does serve (never OPTIONS).
    const res = await call(preflight('/merchant/v1/payment-links'));
    expect(await res.json()).toEqual({ error: { code: 'common.err.method_not_allowed', message: expect.any(String) } });
    expect(res.headers.get('allow')).toBe('GET, POST, HEAD');
  });
});

describe('while a dependency is down', () => {
  it('a 503 carries the headers too', async () => {
    sys.faults!.redis.down();
    try {
      await expectSecured([
        {
          name: 'session read without Redis',
          method: 'GET',
          path: '/api/v1/payment-links',
          headers: { Authorization: `Bearer ${session}` },
          status: 503,
        },
      ]);
    } finally {
      sys.faults!.redis.up();
    }
  }, 20_000);
});
