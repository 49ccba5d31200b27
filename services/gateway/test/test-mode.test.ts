import { subjects, type Identity } from '@pl/contracts';
import { startHarness, type Harness, type Reply } from './harness';

/**
 * The gateway's half of test mode (docs/test-mode.md): which mode each credential acts in, as the identity it sends over
 * NATS says, the `Pl-Mode` header, and the budgets and metrics kept per mode. The links behind it are scripted.
 */
let h: Harness;
let m: Awaited<ReturnType<Harness['merchant']>>;
let session: Record<string, string>;

beforeAll(async () => {
  h = await startHarness();
  m = await h.merchant();
  const res = await h.request('POST', '/api/v1/auth/login', { body: { email: m.email, password: m.password } });
  session = { Authorization: `Bearer ${res.body.session_token as string}` };
});
afterAll(() => h.stop());
beforeEach(() => h.reset());

const expectError = (res: Reply, status: number, code: string): void => {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.text).not.toMatch(/\n\s+at /);
};
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
const list = (headers: Record<string, string>) => h.request('GET', '/merchant/v1/payment-links', { headers });
const modesSent = (subject: string): string[] =>
  h.calls.filter((c) => c.subject === subject).map((c) => (c.identity as Extract<Identity, { kind: 'merchant' }>).mode);

describe('API key pairs', () => {
  it('acts in test mode with the test pair and live mode with the live pair, on reads and creates', async () => {
    expect(m.testKeys['X-API-Key']).toMatch(/^pk_test_/);
    expect(m.testKeys['X-API-Secret']).toMatch(/^sk_test_/);
    expect((await list(m.testKeys)).status).toBe(200);
    expect((await list(m.keys)).status).toBe(200);
    // Answered from the key cache the second time: the cached pair keeps its own mode.
    expect((await list(m.testKeys)).status).toBe(200);
    expect(modesSent(subjects.linksList.name)).toEqual(['test', 'live', 'test']);
    const body = { shop_id: 1, amount: '10.00' };
    expect((await h.request('POST', '/merchant/v1/payment-links', { headers: m.testKeys, body })).status).toBe(201);
    expect((await h.request('POST', '/merchant/v1/payment-links', { headers: { ...m.testKeys, 'Pl-Mode': 'test' }, body })).status).toBe(201);
    expect((await h.request('POST', '/merchant/v1/payment-links', { headers: { ...m.keys, 'Pl-Mode': 'live' }, body })).status).toBe(201);
    expect(modesSent(subjects.linksCreate.name)).toEqual(['test', 'test', 'live']);
  });

  it.each([
    ['pk_test_ with sk_live_', () => ({ 'X-API-Key': m.testKeys['X-API-Key'], 'X-API-Secret': m.keys['X-API-Secret'] })],
    ['pk_live_ with sk_test_', () => ({ 'X-API-Key': m.keys['X-API-Key'], 'X-API-Secret': m.testKeys['X-API-Secret'] })],
  ])('refuses a pair of mixed modes (%s) with 401 and the message of any bad pair, before any look-up', async (_name, mixed) => {
    // Both pairs verified and remembered first: a mixed pair must not be answered from memory either.
    await list(m.keys);
    await list(m.testKeys);
    h.reset();
    const wrong = await list({ ...m.keys, 'X-API-Secret': 'sk_live_wrong' });
    const res = await list(mixed());
    expectError(res, 401, 'common.err.unauthorized');
    expect(res.body.error.message).toBe(wrong.body.error.message);
    expect(h.calls).toHaveLength(0);
  });

  it.each([
    ['the test pair', 'live', () => m.testKeys],
    ['the live pair', 'test', () => m.keys],
  ])('answers 400 to %s with Pl-Mode: %s, naming the header, and sends nothing', async (_name, other, keys) => {
    const res = await h.request('POST', '/merchant/v1/payment-links', {
      headers: { ...keys(), 'Pl-Mode': other },
      body: { shop_id: 1, amount: '1' },
    });
    expectError(res, 400, 'common.err.validation_failed');
    const own = other === 'live' ? 'test' : 'live';
    expect(res.body.error.message).toContain(`Pl-Mode: ${other} does not match the ${own} credential; ${other} mode takes ${other} keys`);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'Pl-Mode' })]);
    expectError(await list({ ...keys(), 'Pl-Mode': other }), 400, 'common.err.validation_failed');
    expect(h.calls).toHaveLength(0);
  });

  it('answers 401 before 400: a wrong pair with a mismatching Pl-Mode is unauthorized', async () => {
    expectError(await list({ ...m.testKeys, 'X-API-Secret': 'sk_test_wrong', 'Pl-Mode': 'live' }), 401, 'common.err.unauthorized');
  });
});

describe('cashier keys', () => {
  it('acts in the mode of the key prefix, on both cashier routes', async () => {
    const live = h.cashierKey(m.id, 7);
    const test = h.cashierKey(m.id, 7, 'test');
    expect(test).toMatch(/^svc_test_/);
    const pay = (key: string, headers: Record<string, string> = {}) =>
      h.request('POST', '/api/v1/merchant/payments', { headers: { ...bearer(key), ...headers }, body: { amount: '1.00' } });
    expect((await pay(test)).status).toBe(201);
    expect((await pay(live)).status).toBe(201);
    expect((await pay(test, { 'Pl-Mode': 'test' })).status).toBe(201);
    // A Bearer svc_test_ on the dashboard's create route is a cashier key too, not a session token.
    const viaDashboardRoute = await h.request('POST', '/api/v1/payment-links', { headers: bearer(test), body: { amount: '1.00' } });
    expect(viaDashboardRoute.status).toBe(201);
    expect(modesSent(subjects.linksCreate.name)).toEqual(['test', 'live', 'test', 'test']);
    const shops = h.calls
      .filter((c) => c.subject === subjects.linksCreate.name)
      .map((c) => (c.identity as Extract<Identity, { kind: 'merchant' }>).shop_id);
    expect(shops).toEqual([7, 7, 7, 7]);
  });

  it('answers 400 when Pl-Mode names the other mode, and 401 for a malformed test key', async () => {
    const live = h.cashierKey(m.id, 8);
    const test = h.cashierKey(m.id, 8, 'test');
    const pay = (route: string, key: string, mode: string) =>
      h.request('POST', route, { headers: { ...bearer(key), 'Pl-Mode': mode }, body: { amount: '1.00' } });
    const res = await pay('/api/v1/merchant/payments', live, 'test');
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.message).toContain('Pl-Mode: test does not match the live credential; test mode takes test keys');
    expectError(await pay('/api/v1/merchant/payments', test, 'live'), 400, 'common.err.validation_failed');
    expectError(await pay('/api/v1/payment-links', test, 'live'), 400, 'common.err.validation_failed');
    expectError(await pay('/api/v1/merchant/payments', 'svc_test_', 'test'), 401, 'common.err.unauthorized');
    expectError(await pay('/api/v1/payment-links', 'svc_test_not!valid', 'test'), 401, 'common.err.unauthorized');
    expect(h.calls.filter((c) => c.subject === subjects.linksCreate.name)).toHaveLength(0);
  });
});

describe('sessions', () => {
  it('act live without Pl-Mode or with Pl-Mode: live, and in test mode with Pl-Mode: test', async () => {
    for (const headers of [{}, { 'Pl-Mode': 'live' }, { 'Pl-Mode': 'test' }, { 'pl-mode': 'test' }] as Record<string, string>[]) {
      expect((await h.request('GET', '/api/v1/payment-links', { headers: { ...session, ...headers } })).status).toBe(200);
    }
    expect(modesSent(subjects.linksList.name)).toEqual(['live', 'live', 'test', 'test']);
    const created = await h.request('POST', '/api/v1/payment-links', {
      headers: { ...session, 'Pl-Mode': 'test' },
      body: { shop_id: 1, amount: '1' },
    });
    expect(created.status).toBe(201);
    expect(modesSent(subjects.linksCreate.name)).toEqual(['test']);
  });

  it.each(['TEST', 'Live', 'sandbox', '', 'test, live'])('answer 400 to Pl-Mode: %j, naming the header, and send nothing', async (value) => {
    const res = await h.request('GET', '/api/v1/payment-links', { headers: { ...session, 'Pl-Mode': value } });
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.message).toMatch(/^Pl-Mode header is invalid/);
    expect(res.body.error.details).toEqual([{ field: 'Pl-Mode', code: 'invalid_format', message: 'must be live or test' }]);
    expectError(await list({ ...m.testKeys, 'Pl-Mode': value }), 400, 'common.err.validation_failed');
    expect(h.calls).toHaveLength(0);
  });

  it('answer 401 before 400 when the session is missing', async () => {
    expectError(await h.request('GET', '/api/v1/payment-links', { headers: { 'Pl-Mode': 'nope' } }), 401, 'common.err.unauthorized');
  });
});

describe('metrics', () => {
  it('label every request with the mode it acted in, none before authentication', async () => {
    await list(m.testKeys);
    await list(m.keys);
    await list({});
    const text = await (await fetch(`http://127.0.0.1:${h.opsPort}/metrics`)).text();
    const count = (status: string, mode: string): number => {
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('http_server_request_duration_seconds_count{') &&
            l.includes('route="/merchant/v1/payment-links"') &&
            l.includes(`status="${status}"`) &&
            l.includes(`mode="${mode}"`),
        );
      return line ? Number(line.split(' ').pop()) : 0;
    };
    expect(count('200', 'test')).toBeGreaterThanOrEqual(1);
    expect(count('200', 'live')).toBeGreaterThanOrEqual(1);
    expect(count('401', 'none')).toBeGreaterThanOrEqual(1);
    expect(count('401', 'live') + count('401', 'test')).toBe(0);
  });
});

describe('rate limits', () => {
  let limited: Harness;
  beforeAll(async () => {
    limited = await startHarness({
      env: {
        RATE_LIMIT_API_KEY_PER_MINUTE: '2',
        RATE_LIMIT_CASHIER_PER_MINUTE: '2',
        RATE_LIMIT_SESSION_PER_MINUTE: '2',
        RATE_LIMIT_AUTH_FAILURES_PER_IP_PER_MINUTE: '2',
      },
    });
  });
  afterAll(() => limited?.stop());

  const spend = async (n: number, call: () => Promise<Reply>): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await call()).status);
    return statuses;
  };

  it('keep a budget per mode for API key pairs, cashier keys and sessions', async () => {
    const merchant = await limited.merchant();
    const get = (headers: Record<string, string>) => () => limited.request('GET', '/merchant/v1/payment-links', { headers });
    expect(await spend(3, get(merchant.testKeys))).toEqual([200, 200, 429]);
    expect(await spend(3, get(merchant.keys))).toEqual([200, 200, 429]);

    const pay = (key: string) => () => limited.request('POST', '/api/v1/merchant/payments', { headers: bearer(key), body: { amount: '1' } });
    expect(await spend(3, pay(limited.cashierKey(merchant.id, 3, 'live')))).toEqual([201, 201, 429]);
    expect(await spend(3, pay(limited.cashierKey(merchant.id, 3, 'test')))).toEqual([201, 201, 429]);

    const login = await limited.request('POST', '/api/v1/auth/login', { body: { email: merchant.email, password: merchant.password } });
    const dashboard = (mode: Record<string, string>) => () =>
      limited.request('GET', '/api/v1/payment-links', { headers: { ...bearer(login.body.session_token as string), ...mode } });
    expect(await spend(3, dashboard({ 'Pl-Mode': 'test' }))).toEqual([200, 200, 429]);
    expect(await spend(3, dashboard({}))).toEqual([200, 200, 429]);
  });

  it('refuse a pair of mixed modes before any look-up: it spends none of the failed-authentication budget', async () => {
    const merchant = await limited.merchant();
    const mixed = { 'X-API-Key': merchant.keys['X-API-Key'], 'X-API-Secret': merchant.testKeys['X-API-Secret'] };
    const get = (headers: Record<string, string>) => () => limited.request('GET', '/merchant/v1/payment-links', { headers });
    expect(await spend(4, get(mixed))).toEqual([401, 401, 401, 401]);
    // A well-formed wrong pair is looked up, and counted.
    expect(await spend(3, get({ ...merchant.testKeys, 'X-API-Secret': 'sk_test_wrong' }))).toEqual([401, 401, 429]);
  });
});
