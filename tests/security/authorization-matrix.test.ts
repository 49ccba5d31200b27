import { randomBytes } from 'node:crypto';
import type { Mode } from '@pl/contracts';
import { eventually } from '@pl/testing';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * Every merchant route × every kind of credential × own or another merchant's resource, each cell with
 * its exact status and error code. A cell that should succeed gets a fresh resource, so cells are independent.
 * Every credential exists in both modes (docs/test-mode.md): a test credential acts like its live counterpart on
 * the objects of its own mode, so a cell makes its resource in the credential's mode.
 */
let sys: TestSystem;
let receiver: WebhookReceiver;
let me: { merchant: TestMerchant; shop: TestShop; otherShop: TestShop; session: string };
let them: { merchant: TestMerchant; shop: TestShop; session: string };
let loggedOut: string;
/** The test system's PUBLIC_BASE_URL origin (the gateway's default). */
const DASHBOARD_ORIGIN = 'http://localhost:8080';

beforeAll(async () => {
  // Signing in is limited per address, and every test here signs in from the same one: a stepped-up session is two
  // limited calls (the password, then the second step), and the session rows sign in once per cell.
  sys = await startSystem({ env: { RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '1000' } });
  receiver = await WebhookReceiver.start();
  const a = await sys.merchantWithShop({ webhookUrl: receiver.url });
  const otherShop = await sys.shop(a.merchant.id, { webhookUrl: receiver.url });
  me = { ...a, otherShop, session: await sys.login(a.merchant) };
  const b = await sys.merchantWithShop({ webhookUrl: receiver.url });
  them = { ...b, session: await sys.login(b.merchant) };
  loggedOut = await sys.login(a.merchant);
  expect((await sys.http.post('/api/v1/auth/logout', undefined, { headers: { Authorization: `Bearer ${loggedOut}` } })).status).toBe(204);
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await sys?.stop();
});

type Credential =
  | 'none'
  | 'malformed'
  | 'wrong secret'
  | 'api key'
  | 'other merchant api key'
  | 'session'
  | 'session cookie'
  | 'session cookie from another site'
  | 'other merchant session'
  | 'logged-out session'
  | 'cashier key'
  | 'cashier key of my other shop'
  | 'other merchant cashier key'
  | 'test api key'
  | 'other merchant test api key'
  | 'test session'
  | 'test session cookie'
  | 'test session cookie from another site'
  | 'other merchant test session'
  | 'test cashier key'
  | 'test cashier key of my other shop'
  | 'other merchant test cashier key'
  | 'mixed pair pk_test_ sk_live_'
  | 'mixed pair pk_live_ sk_test_';

const CREDENTIALS: Credential[] = [
  'none',
  'malformed',
  'wrong secret',
  'api key',
  'other merchant api key',
  'session',
  'session cookie',
  'session cookie from another site',
  'other merchant session',
  'logged-out session',
  'cashier key',
  'cashier key of my other shop',
  'other merchant cashier key',
  'test api key',
  'other merchant test api key',
  'test session',
  'test session cookie',
  'test session cookie from another site',
  'other merchant test session',
  'test cashier key',
  'test cashier key of my other shop',
  'other merchant test cashier key',
  'mixed pair pk_test_ sk_live_',
  'mixed pair pk_live_ sk_test_',
];

/** The live credential a test one acts like (on its own mode's objects). */
const LIVE_COUNTERPART: Partial<Record<Credential, Credential>> = {
  'test api key': 'api key',
  'other merchant test api key': 'other merchant api key',
  'test session': 'session',
  'test session cookie': 'session cookie',
  'test session cookie from another site': 'session cookie from another site',
  'other merchant test session': 'other merchant session',
  'test cashier key': 'cashier key',
  'test cashier key of my other shop': 'cashier key of my other shop',
  'other merchant test cashier key': 'other merchant cashier key',
};
const modeOf = (c: Credential): Mode => (LIVE_COUNTERPART[c] ? 'test' : 'live');
const TEST_MODE = { 'Pl-Mode': 'test' };

function headersFor(credential: Credential, family: 'merchant' | 'api'): Record<string, string> {
  const live = LIVE_COUNTERPART[credential];
  // A session picks test mode with the header; a test key is of test mode by itself.
  if (live?.includes('session')) return { ...headersFor(live, family), ...TEST_MODE };
  switch (credential) {
    case 'none':
      return {};
    case 'malformed':
      return family === 'merchant' ? { 'X-API-Key': 'pk_live_', 'X-API-Secret': '' } : { Authorization: 'Bearer' };
    case 'wrong secret':
      return family === 'merchant'
        ? { 'X-API-Key': me.merchant.apiKey, 'X-API-Secret': `${me.merchant.apiSecret.slice(0, -2)}xx` }
        : { Authorization: `Bearer ${me.session.slice(0, -2)}xx` };
    case 'api key':
      return me.merchant.keys;
    case 'other merchant api key':
      return them.merchant.keys;
    case 'session':
      return { Authorization: `Bearer ${me.session}` };
    case 'session cookie':
      // A browser sends the dashboard's origin with every change it makes from a dashboard page.
      return { Cookie: `sid=${me.session}`, Origin: DASHBOARD_ORIGIN };
    case 'session cookie from another site':
      // What a forged form or fetch on another site makes the browser send: the cookie, and that site's origin.
      return { Cookie: `sid=${me.session}`, Origin: 'https://evil.example' };
    case 'other merchant session':
      return { Authorization: `Bearer ${them.session}` };
    case 'logged-out session':
      return { Authorization: `Bearer ${loggedOut}` };
    case 'cashier key':
      return { Authorization: `Bearer ${me.shop.cashierKey}` };
    case 'cashier key of my other shop':
      return { Authorization: `Bearer ${me.otherShop.cashierKey}` };
    case 'other merchant cashier key':
      return { Authorization: `Bearer ${them.shop.cashierKey}` };
    case 'test api key':
      return me.merchant.testKeys;
    case 'other merchant test api key':
      return them.merchant.testKeys;
    case 'test cashier key':
      return { Authorization: `Bearer ${me.shop.testCashierKey}` };
    case 'test cashier key of my other shop':
      return { Authorization: `Bearer ${me.otherShop.testCashierKey}` };
    case 'other merchant test cashier key':
      return { Authorization: `Bearer ${them.shop.testCashierKey}` };
    case 'mixed pair pk_test_ sk_live_':
      return { 'X-API-Key': me.merchant.testApiKey, 'X-API-Secret': me.merchant.apiSecret };
    case 'mixed pair pk_live_ sk_test_':
      return { 'X-API-Key': me.merchant.apiKey, 'X-API-Secret': me.merchant.testApiSecret };
    default:
      throw new Error(`no headers for ${credential}`);
  }
}

const keysOf = (owner: 'me' | 'them', mode: Mode): Record<string, string> => {
  const m = (owner === 'me' ? me : them).merchant;
  return mode === 'live' ? m.keys : m.testKeys;
};

const createLink = async (owner: 'me' | 'them', mode: Mode = 'live'): Promise<string> => {
  const o = owner === 'me' ? me : them;
  const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: o.shop.id, amount: 5 }, { headers: keysOf(owner, mode) });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

/** A paid link of `owner` in `mode` (a live one paid by its provider, a test one by the simulator) and its delivery. */
const paidLinkDelivery = async (owner: 'me' | 'them', mode: Mode = 'live'): Promise<{ linkId: string; deliveryId: string }> => {
  const linkId = await createLink(owner, mode);
  const paid =
    mode === 'live' ? await sys.providerCallback(sandboxPaymentId(linkId), 'paid') : await sys.http.post(`/p/${linkId}/simulate`, { status: 'paid' });
  expect(paid.status).toBe(200);
  await receiver.nthFor(linkId, 1);
  // The receiver is answered before the notifier records the attempt: read the log until the delivery is listed.
  let deliveryId: string | undefined;
  await eventually(
    async () => {
      const list = await sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${linkId}`, { headers: keysOf(owner, mode) });
      deliveryId = list.body.deliveries?.[0]?.id;
      return deliveryId !== undefined;
    },
    `the delivery of ${linkId} is listed`,
    10_000,
    10,
  );
  return { linkId, deliveryId: deliveryId! };
};

/**
 * A shop of mine for a cell that changes it (rename, rotation, cashier-key reissue), so no cell changes the shop
 * whose cashier key is a credential of every row.
 */
const freshShop = (): Promise<TestShop> => sys.shop(me.merchant.id, { webhookUrl: receiver.url });

const bearerOf = (owner: 'me' | 'them'): Record<string, string> => ({ Authorization: `Bearer ${(owner === 'me' ? me : them).session}` });

/** An extra API key of `owner`, so a cell never touches the pair its credentials use. */
const newKey = async (owner: 'me' | 'them'): Promise<string> => {
  const res = await sys.http.post('/api/v1/api-keys', { label: 'matrix' }, { headers: bearerOf(owner) });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

/** Revokes a key a cell made (409 when the cell already ended it), so no merchant reaches its active-key limit. */
const revokeKey = async (owner: 'me' | 'them', id: string): Promise<void> => {
  const res = await sys.http.post(`/api/v1/api-keys/${id}/revoke`, {}, { headers: bearerOf(owner) });
  expect([200, 409]).toContain(res.status);
};

/**
 * A password change ends the merchant's other sessions, so the cells that may succeed use a merchant of their
 * own; every other credential names me (and the other merchant's session sends my password, not its own).
 */
const changePassword = async (c: Credential) => {
  const body = (current: string) => ({ current_password: current, new_password: `new-${randomBytes(8).toString('hex')}` });
  const live = LIVE_COUNTERPART[c] ?? c;
  if (live === 'session' || live === 'session cookie' || live === 'session cookie from another site') {
    const fresh = await sys.merchant();
    const token = await sys.login(fresh);
    const headers: Record<string, string> = {
      ...(live === 'session'
        ? { Authorization: `Bearer ${token}` }
        : { Cookie: `sid=${token}`, Origin: live === 'session cookie' ? DASHBOARD_ORIGIN : 'https://evil.example' }),
      ...(modeOf(c) === 'test' ? TEST_MODE : {}),
    };
    return sys.http.post('/api/v1/auth/password', body(fresh.password), { headers });
  }
  return sys.http.post('/api/v1/auth/password', body(me.merchant.password), { headers: headersFor(c, 'api') });
};

/** The listed id of the session a token opened. */
const sessionIdOf = async (token: string): Promise<string> => {
  const res = await sys.http.get('/api/v1/me/sessions', { headers: { Authorization: `Bearer ${token}` } });
  const current = (res.body.sessions as { id: string; current: boolean }[]).find((s) => s.current);
  if (!current) throw new Error('no current session listed');
  return current.id;
};
let kept: Promise<string> | undefined;
/** One more session of mine that only cells refused to end it name. */
const keptSessionId = (): Promise<string> => (kept ??= sys.login(me.merchant).then(sessionIdOf));

type Outcome = [number, string | null];
const OK = (status: number): Outcome => [status, null];
const E401: Outcome = [401, 'common.err.unauthorized'];
const E403: Outcome = [403, 'common.err.forbidden'];
const E404: Outcome = [404, 'common.err.not_found'];

/** For one route family, what each credential gets: API-key routes accept only the pair. */
const apiKeyOnly =
  (own: Outcome, foreign: Outcome) =>
  (c: Credential): Outcome =>
    c === 'api key' ? own : c === 'other merchant api key' ? foreign : E401;
/**
 * Session routes: a read answers the cookie from any origin; a change refuses it (CSRF, 403) unless it comes from
 * the dashboard's origin.
 */
const sessionRoute =
  (kind: 'read' | 'change') =>
  (own: Outcome, foreign: Outcome) =>
  (c: Credential): Outcome => {
    if (c === 'session' || c === 'session cookie') return own;
    if (c === 'session cookie from another site') return kind === 'read' ? own : E403;
    return c === 'other merchant session' ? foreign : E401;
  };
const sessionRead = sessionRoute('read');
const sessionChange = sessionRoute('change');

interface Row {
  route: string;
  /** Makes the request for a credential; `mine` says whether the resource named is the caller's. */
  call: (c: Credential) => Promise<{ status: number; body: { error?: { code: string } } }>;
  expected: (c: Credential) => Outcome;
}

const ROWS: Row[] = [
  {
    route: '1 POST /merchant/v1/payment-links (my shop)',
    call: (c) => sys.http.post('/merchant/v1/payment-links', { shop_id: me.shop.id, amount: 1 }, { headers: headersFor(c, 'merchant') }),
    expected: apiKeyOnly(OK(201), E403),
  },
  {
    route: '2 POST /api/v1/payment-links (my shop)',
    call: (c) => sys.http.post('/api/v1/payment-links', { shop_id: me.shop.id, amount: 1 }, { headers: headersFor(c, 'api') }),
    expected: (c) =>
      c === 'cashier key'
        ? OK(201)
        : c === 'cashier key of my other shop' || c === 'other merchant cashier key'
          ? E403
          : sessionChange(OK(201), E403)(c),
  },
  {
    route: '3 POST /api/v1/merchant/payments (no shop_id)',
    call: (c) => sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: headersFor(c, 'api') }),
    expected: (c) => (c === 'cashier key' || c === 'cashier key of my other shop' || c === 'other merchant cashier key' ? OK(201) : E401),
  },
  {
    route: '3 POST /api/v1/merchant/payments (shop_id of my first shop)',
    call: (c) => sys.http.post('/api/v1/merchant/payments', { amount: 1, shop_id: me.shop.id }, { headers: headersFor(c, 'api') }),
    expected: (c) => (c === 'cashier key' ? OK(201) : c === 'cashier key of my other shop' || c === 'other merchant cashier key' ? E403 : E401),
  },
  {
    route: '4 POST /merchant/v1/payment-links/{my link}/cancel',
    call: async (c) =>
      sys.http.post(`/merchant/v1/payment-links/${await createLink('me', modeOf(c))}/cancel`, {}, { headers: headersFor(c, 'merchant') }),
    expected: apiKeyOnly(OK(200), E403),
  },
  {
    route: '5 POST /api/v1/payment-links/{my link}/cancel',
    call: async (c) => sys.http.post(`/api/v1/payment-links/${await createLink('me', modeOf(c))}/cancel`, {}, { headers: headersFor(c, 'api') }),
    expected: sessionChange(OK(200), E403),
  },
  {
    route: '6 GET /merchant/v1/payment-links/{my link}',
    call: async (c) => sys.http.get(`/merchant/v1/payment-links/${await createLink('me', modeOf(c))}`, { headers: headersFor(c, 'merchant') }),
    expected: apiKeyOnly(OK(200), E403),
  },
  {
    route: '7 GET /merchant/v1/payment-links',
    call: (c) => sys.http.get('/merchant/v1/payment-links', { headers: headersFor(c, 'merchant') }),
    expected: apiKeyOnly(OK(200), OK(200)),
  },
  {
    route: '8 GET /api/v1/payment-links',
    call: (c) => sys.http.get('/api/v1/payment-links', { headers: headersFor(c, 'api') }),
    expected: sessionRead(OK(200), OK(200)),
  },
  {
    route: 'GET /merchant/v1/webhook-deliveries?payment_link_id={my paid link}',
    call: async (c) => {
      const { linkId } = await paidLinkDelivery('me', modeOf(c));
      return sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${linkId}`, { headers: headersFor(c, 'merchant') });
    },
    expected: apiKeyOnly(OK(200), E403),
  },
  {
    route: 'POST /merchant/v1/webhook-deliveries/{my delivery}/resend',
    call: async (c) => {
      const { deliveryId } = await paidLinkDelivery('me', modeOf(c));
      return sys.http.post(`/merchant/v1/webhook-deliveries/${deliveryId}/resend`, {}, { headers: headersFor(c, 'merchant') });
    },
    expected: apiKeyOnly(OK(202), E403),
  },
  {
    route: 'GET /api/v1/payment-links/{my link}',
    call: async (c) => sys.http.get(`/api/v1/payment-links/${await createLink('me', modeOf(c))}`, { headers: headersFor(c, 'api') }),
    expected: sessionRead(OK(200), E403),
  },
  {
    route: 'GET /api/v1/shops',
    call: (c) => sys.http.get('/api/v1/shops', { headers: headersFor(c, 'api') }),
    expected: sessionRead(OK(200), OK(200)),
  },
  {
    route: 'POST /api/v1/shops',
    call: (c) => sys.http.post('/api/v1/shops', { name: 'Matrix shop' }, { headers: headersFor(c, 'api') }),
    expected: sessionChange(OK(201), OK(201)),
  },
  {
    route: 'GET /api/v1/shops/{my shop}',
    call: (c) => sys.http.get(`/api/v1/shops/${me.shop.id}`, { headers: headersFor(c, 'api') }),
    expected: sessionRead(OK(200), E403),
  },
  {
    route: 'PATCH /api/v1/shops/{my shop}',
    call: async (c) =>
      sys.http.call('PATCH', `/api/v1/shops/${(await freshShop()).id}`, { headers: headersFor(c, 'api'), body: { name: 'Renamed' } }),
    expected: sessionChange(OK(200), E403),
  },
  {
    route: 'POST /api/v1/shops/{my shop}/webhook-secret/rotate',
    call: async (c) => sys.http.post(`/api/v1/shops/${(await freshShop()).id}/webhook-secret/rotate`, {}, { headers: headersFor(c, 'api') }),
    expected: sessionChange(OK(200), E403),
  },
  {
    route: 'POST /api/v1/shops/{my shop}/webhook-test',
    call: async (c) => sys.http.post(`/api/v1/shops/${(await freshShop()).id}/webhook-test`, {}, { headers: headersFor(c, 'api') }),
    expected: sessionChange(OK(202), E403),
  },
  {
    route: 'POST /api/v1/shops/{my shop}/cashier-key/reissue',
    call: async (c) => sys.http.post(`/api/v1/shops/${(await freshShop()).id}/cashier-key/reissue`, {}, { headers: headersFor(c, 'api') }),
    expected: sessionChange(OK(200), E403),
  },
  {
    route: 'GET /merchant/v1/shops',
    call: (c) => sys.http.get('/merchant/v1/shops', { headers: headersFor(c, 'merchant') }),
    expected: apiKeyOnly(OK(200), OK(200)),
  },
  {
    route: 'GET /merchant/v1/shops/{my shop}',
    call: (c) => sys.http.get(`/merchant/v1/shops/${me.shop.id}`, { headers: headersFor(c, 'merchant') }),
    expected: apiKeyOnly(OK(200), E403),
  },
  {
    route: 'GET /api/v1/webhook-deliveries?shop_id={my shop}',
    call: (c) => sys.http.get(`/api/v1/webhook-deliveries?shop_id=${me.shop.id}`, { headers: headersFor(c, 'api') }),
    expected: sessionRead(OK(200), E403),
  },
  {
    route: 'GET /api/v1/webhook-deliveries?payment_link_id={my paid link}',
    call: async (c) => {
      const { linkId } = await paidLinkDelivery('me', modeOf(c));
      return sys.http.get(`/api/v1/webhook-deliveries?payment_link_id=${linkId}`, { headers: headersFor(c, 'api') });
    },
    expected: sessionRead(OK(200), E403),
  },
  {
    route: 'POST /api/v1/webhook-deliveries/{my delivery}/resend',
    call: async (c) => {
      const { deliveryId } = await paidLinkDelivery('me', modeOf(c));
      return sys.http.post(`/api/v1/webhook-deliveries/${deliveryId}/resend`, {}, { headers: headersFor(c, 'api') });
    },
    expected: sessionChange(OK(202), E403),
  },
  {
    route: 'GET /api/v1/me',
    call: (c) => sys.http.get('/api/v1/me', { headers: headersFor(c, 'api') }),
    expected: sessionRead(OK(200), OK(200)),
  },
  {
    route: 'GET /api/v1/me/sessions',
    call: (c) => sys.http.get('/api/v1/me/sessions', { headers: headersFor(c, 'api') }),
    expected: sessionRead(OK(200), OK(200)),
  },
  {
    route: 'DELETE /api/v1/me/sessions/{another session of mine}',
    call: async (c) => {
      const live = LIVE_COUNTERPART[c] ?? c;
      // A cell that may end it ends a session of its own; the others all name one that stays.
      const id = live === 'session' || live === 'session cookie' ? await sessionIdOf(await sys.login(me.merchant)) : await keptSessionId();
      return sys.http.call('DELETE', `/api/v1/me/sessions/${id}`, { headers: headersFor(c, 'api') });
    },
    // Sessions are the user's own: another user's id names nothing of theirs (404), as an unknown one.
    expected: sessionChange(OK(204), E404),
  },
  {
    route: 'POST /api/v1/me/sessions/revoke-others',
    call: (c) => sys.http.post('/api/v1/me/sessions/revoke-others', {}, { headers: headersFor(c, 'api') }),
    expected: sessionChange(OK(204), OK(204)),
  },
  {
    route: 'POST /api/v1/auth/password',
    call: changePassword,
    // The other merchant's session sends my current password, which is not its own: 403, nothing changes.
    expected: sessionChange(OK(204), E403),
  },
  {
    route: 'GET /api/v1/audit-events',
    call: (c) => sys.http.get('/api/v1/audit-events', { headers: headersFor(c, 'api') }),
    expected: sessionRead(OK(200), OK(200)),
  },
  {
    route: 'GET /api/v1/api-keys',
    call: (c) => sys.http.get('/api/v1/api-keys', { headers: headersFor(c, 'api') }),
    expected: sessionRead(OK(200), OK(200)),
  },
  {
    route: 'POST /api/v1/api-keys',
    call: async (c) => {
      const res = await sys.http.post('/api/v1/api-keys', { label: 'matrix' }, { headers: headersFor(c, 'api') });
      if (res.status === 201) await revokeKey((LIVE_COUNTERPART[c] ?? c) === 'other merchant session' ? 'them' : 'me', res.body.id);
      return res;
    },
    expected: sessionChange(OK(201), OK(201)),
  },
  {
    route: 'POST /api/v1/api-keys/{my key}/reissue',
    call: async (c) => {
      const id = await newKey('me');
      const res = await sys.http.post(`/api/v1/api-keys/${id}/reissue`, {}, { headers: headersFor(c, 'api') });
      await revokeKey('me', id);
      if (res.status === 201) await revokeKey('me', res.body.id);
      return res;
    },
    expected: sessionChange(OK(201), E403),
  },
  {
    route: 'POST /api/v1/api-keys/{my key}/revoke',
    call: async (c) => {
      const id = await newKey('me');
      const res = await sys.http.post(`/api/v1/api-keys/${id}/revoke`, {}, { headers: headersFor(c, 'api') });
      await revokeKey('me', id);
      return res;
    },
    expected: sessionChange(OK(200), E403),
  },
];

/** A pair of two modes is no pair at all; a test credential is answered as its live counterpart is. */
const expectedOf = (row: Row, c: Credential): Outcome => (c.startsWith('mixed pair') ? E401 : row.expected(LIVE_COUNTERPART[c] ?? c));

describe.each(ROWS)('$route', (row) => {
  it.each(CREDENTIALS)('with %s', async (credential) => {
    const res = await row.call(credential);
    const [status, code] = expectedOf(row, credential);
    expect({ credential, status: res.status, code: res.body?.error?.code ?? null }).toEqual({ credential, status, code });
  });
});

describe("another merchant's resources with my own valid credentials", () => {
  it('answers 403 on every route that names them', async () => {
    const theirLink = await createLink('them');
    const { deliveryId, linkId: theirPaidLink } = await paidLinkDelivery('them');
    const mySession = { Authorization: `Bearer ${me.session}` };
    const theirKey = await newKey('them');
    const cells = [
      sys.http.post('/merchant/v1/payment-links', { shop_id: them.shop.id, amount: 1 }, { headers: me.merchant.keys }),
      sys.http.post('/api/v1/payment-links', { shop_id: them.shop.id, amount: 1 }, { headers: { Authorization: `Bearer ${me.session}` } }),
      sys.http.post(`/merchant/v1/payment-links/${theirLink}/cancel`, {}, { headers: me.merchant.keys }),
      sys.http.post(`/api/v1/payment-links/${theirLink}/cancel`, {}, { headers: { Authorization: `Bearer ${me.session}` } }),
      sys.http.get(`/merchant/v1/payment-links/${theirLink}`, { headers: me.merchant.keys }),
      sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${theirPaidLink}`, { headers: me.merchant.keys }),
      sys.http.post(`/merchant/v1/webhook-deliveries/${deliveryId}/resend`, {}, { headers: me.merchant.keys }),
      sys.http.get(`/merchant/v1/shops/${them.shop.id}`, { headers: me.merchant.keys }),
      sys.http.get(`/api/v1/payment-links/${theirLink}`, { headers: mySession }),
      sys.http.get(`/api/v1/shops/${them.shop.id}`, { headers: mySession }),
      sys.http.call('PATCH', `/api/v1/shops/${them.shop.id}`, { headers: mySession, body: { name: 'Mine now' } }),
      sys.http.post(`/api/v1/shops/${them.shop.id}/webhook-secret/rotate`, {}, { headers: mySession }),
      sys.http.post(`/api/v1/shops/${them.shop.id}/webhook-test`, {}, { headers: mySession }),
      sys.http.post(`/api/v1/shops/${them.shop.id}/cashier-key/reissue`, {}, { headers: mySession }),
      sys.http.get(`/api/v1/webhook-deliveries?shop_id=${them.shop.id}`, { headers: mySession }),
      sys.http.get(`/api/v1/webhook-deliveries?payment_link_id=${theirPaidLink}`, { headers: mySession }),
      sys.http.post(`/api/v1/webhook-deliveries/${deliveryId}/resend`, {}, { headers: mySession }),
      sys.http.post(`/api/v1/api-keys/${theirKey}/reissue`, {}, { headers: mySession }),
      sys.http.post(`/api/v1/api-keys/${theirKey}/revoke`, {}, { headers: mySession }),
    ];
    for (const res of await Promise.all(cells)) {
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 403, code: 'common.err.forbidden' });
    }
    const list = await sys.http.get('/merchant/v1/payment-links?limit=100', { headers: me.merchant.keys });
    expect(list.body.payment_links.map((l: { id: string }) => l.id)).not.toContain(theirLink);
    expect((await sys.http.get(`/merchant/v1/payment-links/${theirLink}`, { headers: them.merchant.keys })).body.status).toBe('pending');
    // Their shop is as it was: the name unchanged, and its cashier key still works.
    expect((await sys.http.get(`/merchant/v1/shops/${them.shop.id}`, { headers: them.merchant.keys })).body.name).toBe('Test shop');
    const byTheirCashier = await sys.http.post(
      '/api/v1/merchant/payments',
      { amount: 1 },
      { headers: { Authorization: `Bearer ${them.shop.cashierKey}` } },
    );
    expect(byTheirCashier.status).toBe(201);
    // Their key is as it was: neither revoked nor expiring.
    const theirKeys = await sys.http.get('/api/v1/api-keys', { headers: bearerOf('them') });
    expect(theirKeys.body.api_keys.find((k: { id: string }) => k.id === theirKey)).toMatchObject({ revoked_at: null, expires_at: null });
  });
});

describe('filters of every list: one rule (docs/product-decisions.md, the order of checks)', () => {
  /** Every list that takes a link filter, and every one that takes a shop filter, with my credentials. */
  const LINK_FILTERED = ['refunds', 'events', 'webhook-deliveries'];
  const SHOP_FILTERED = ['payment-links', 'refunds', 'balance-transactions', 'events', 'webhook-deliveries'];
  const families = (): [string, Record<string, string>][] => [
    ['/merchant/v1', me.merchant.keys],
    ['/api/v1', bearerOf('me')],
  ];
  const cellsOf = (link: string | null, shop: number | null): [string, Record<string, string>][] =>
    families().flatMap(([base, headers]) => [
      ...(link === null ? [] : LINK_FILTERED.map((l): [string, Record<string, string>] => [`${base}/${l}?payment_link_id=${link}`, headers])),
      ...(shop === null ? [] : SHOP_FILTERED.map((l): [string, Record<string, string>] => [`${base}/${l}?shop_id=${shop}`, headers])),
    ]);
  const expectAll = async (cells: [string, Record<string, string>][], status: number, code: string): Promise<void> => {
    const answers = await Promise.all(cells.map(([path, headers]) => sys.http.get(path, { headers })));
    for (const [i, [path]] of cells.entries()) {
      const res = answers[i]!;
      expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({ path, status, code });
    }
  };

  it("answers 403 to another merchant's link or shop on every list, whether or not it has rows there", async () => {
    const { linkId: withRows } = await paidLinkDelivery('them');
    const withoutRows = await createLink('them');
    await expectAll([...cellsOf(withRows, them.shop.id), ...cellsOf(withoutRows, null)], 403, 'common.err.forbidden');
  });

  it('answers 404 to an unknown link or shop on every list', async () => {
    await expectAll(cellsOf('00000000-0000-4000-8000-000000000000', 2 ** 40), 404, 'common.err.not_found');
  });

  it('lists my own link and shop, with rows or without', async () => {
    const { linkId: withRows } = await paidLinkDelivery('me');
    const withoutRows = await createLink('me');
    for (const [path, headers] of [...cellsOf(withRows, me.shop.id), ...cellsOf(withoutRows, null)]) {
      expect({ path, status: (await sys.http.get(path, { headers })).status }).toEqual({ path, status: 200 });
    }
  });
});

describe("the other mode's resources with my own valid credentials", () => {
  it('answers 404 not_found on every route that names a link or delivery of the other mode, and changes nothing', async () => {
    const myLive = await createLink('me', 'live');
    const myTest = await createLink('me', 'test');
    const liveDelivery = await paidLinkDelivery('me', 'live');
    const testDelivery = await paidLinkDelivery('me', 'test');
    const liveSession = bearerOf('me');
    const testSession = { ...bearerOf('me'), ...TEST_MODE };
    const cells: [string, Promise<{ status: number; body: { error?: { code: string } } }>][] = [
      ['GET /merchant link, live pair', sys.http.get(`/merchant/v1/payment-links/${myTest}`, { headers: me.merchant.keys })],
      ['GET /merchant link, test pair', sys.http.get(`/merchant/v1/payment-links/${myLive}`, { headers: me.merchant.testKeys })],
      ['cancel /merchant link, live pair', sys.http.post(`/merchant/v1/payment-links/${myTest}/cancel`, {}, { headers: me.merchant.keys })],
      ['cancel /merchant link, test pair', sys.http.post(`/merchant/v1/payment-links/${myLive}/cancel`, {}, { headers: me.merchant.testKeys })],
      ['GET /api link, live session', sys.http.get(`/api/v1/payment-links/${myTest}`, { headers: liveSession })],
      ['GET /api link, test session', sys.http.get(`/api/v1/payment-links/${myLive}`, { headers: testSession })],
      ['cancel /api link, live session', sys.http.post(`/api/v1/payment-links/${myTest}/cancel`, {}, { headers: liveSession })],
      ['cancel /api link, test session', sys.http.post(`/api/v1/payment-links/${myLive}/cancel`, {}, { headers: testSession })],
      [
        'resend /merchant, live pair',
        sys.http.post(`/merchant/v1/webhook-deliveries/${testDelivery.deliveryId}/resend`, {}, { headers: me.merchant.keys }),
      ],
      [
        'resend /merchant, test pair',
        sys.http.post(`/merchant/v1/webhook-deliveries/${liveDelivery.deliveryId}/resend`, {}, { headers: me.merchant.testKeys }),
      ],
      ['resend /api, live session', sys.http.post(`/api/v1/webhook-deliveries/${testDelivery.deliveryId}/resend`, {}, { headers: liveSession })],
      ['resend /api, test session', sys.http.post(`/api/v1/webhook-deliveries/${liveDelivery.deliveryId}/resend`, {}, { headers: testSession })],
    ];
    // Every cell answered before any is judged: a failing one leaves no request in flight.
    const answers = await Promise.all(cells.map(([, call]) => call));
    for (const [i, [cell]] of cells.entries()) {
      const res = answers[i]!;
      expect({ cell, status: res.status, code: res.body?.error?.code }).toEqual({ cell, status: 404, code: 'common.err.not_found' });
    }
    // The other mode's link as a list's filter is not found, as a read of it is (and as an unknown link is).
    const lists: [string, Record<string, string>, string][] = [];
    for (const list of ['webhook-deliveries', 'events', 'refunds']) {
      lists.push(
        [`/merchant/v1/${list}`, me.merchant.keys, testDelivery.linkId],
        [`/merchant/v1/${list}`, me.merchant.testKeys, liveDelivery.linkId],
        [`/api/v1/${list}`, liveSession, testDelivery.linkId],
        [`/api/v1/${list}`, testSession, liveDelivery.linkId],
      );
    }
    for (const [path, headers, linkId] of lists) {
      const res = await sys.http.get(`${path}?payment_link_id=${linkId}`, { headers });
      expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({ path, status: 404, code: 'common.err.not_found' });
    }
    expect((await sys.http.get(`/merchant/v1/payment-links/${myLive}`, { headers: me.merchant.keys })).body.status).toBe('pending');
    expect((await sys.http.get(`/merchant/v1/payment-links/${myTest}`, { headers: me.merchant.testKeys })).body.status).toBe('pending');
    expect(receiver.hitsFor(testDelivery.linkId)).toHaveLength(1);
    expect(receiver.hitsFor(liveDelivery.linkId)).toHaveLength(1);
  });

  it("answers 403 to my test credentials on another merchant's test resources, as live credentials get on live ones", async () => {
    const theirLink = await createLink('them', 'test');
    const { deliveryId, linkId: theirPaidLink } = await paidLinkDelivery('them', 'test');
    const testSession = { ...bearerOf('me'), ...TEST_MODE };
    const cells = [
      sys.http.post('/merchant/v1/payment-links', { shop_id: them.shop.id, amount: 1 }, { headers: me.merchant.testKeys }),
      sys.http.post('/api/v1/payment-links', { shop_id: them.shop.id, amount: 1 }, { headers: testSession }),
      sys.http.post(
        '/api/v1/payment-links',
        { shop_id: them.shop.id, amount: 1 },
        { headers: { Authorization: `Bearer ${me.shop.testCashierKey}` } },
      ),
      sys.http.post(`/merchant/v1/payment-links/${theirLink}/cancel`, {}, { headers: me.merchant.testKeys }),
      sys.http.post(`/api/v1/payment-links/${theirLink}/cancel`, {}, { headers: testSession }),
      sys.http.get(`/merchant/v1/payment-links/${theirLink}`, { headers: me.merchant.testKeys }),
      sys.http.get(`/api/v1/payment-links/${theirLink}`, { headers: testSession }),
      sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${theirPaidLink}`, { headers: me.merchant.testKeys }),
      sys.http.get(`/api/v1/webhook-deliveries?payment_link_id=${theirPaidLink}`, { headers: testSession }),
      sys.http.post(`/merchant/v1/webhook-deliveries/${deliveryId}/resend`, {}, { headers: me.merchant.testKeys }),
      sys.http.post(`/api/v1/webhook-deliveries/${deliveryId}/resend`, {}, { headers: testSession }),
      sys.http.get(`/merchant/v1/shops/${them.shop.id}`, { headers: me.merchant.testKeys }),
      sys.http.get(`/api/v1/shops/${them.shop.id}`, { headers: testSession }),
      sys.http.get(`/api/v1/webhook-deliveries?shop_id=${them.shop.id}`, { headers: testSession }),
      sys.http.post(`/api/v1/shops/${them.shop.id}/webhook-test`, {}, { headers: testSession }),
    ];
    for (const res of await Promise.all(cells)) {
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 403, code: 'common.err.forbidden' });
    }
    const list = await sys.http.get('/merchant/v1/payment-links?limit=100', { headers: me.merchant.testKeys });
    expect(list.body.payment_links.map((l: { id: string }) => l.id)).not.toContain(theirLink);
    expect((await sys.http.get(`/merchant/v1/payment-links/${theirLink}`, { headers: them.merchant.testKeys })).body.status).toBe('pending');
    expect(receiver.hitsFor(theirPaidLink)).toHaveLength(1);
  });
});

describe('unknown resources and unconfirmed emails on the session shop routes', () => {
  it('answers 404 for a shop that does not exist, on every route that names one', async () => {
    const unknown = 2 ** 40;
    const session = bearerOf('me');
    const cells = [
      sys.http.get(`/api/v1/shops/${unknown}`, { headers: session }),
      sys.http.call('PATCH', `/api/v1/shops/${unknown}`, { headers: session, body: { name: 'x' } }),
      sys.http.post(`/api/v1/shops/${unknown}/webhook-secret/rotate`, {}, { headers: session }),
      sys.http.post(`/api/v1/shops/${unknown}/webhook-test`, {}, { headers: session }),
      sys.http.post(`/api/v1/shops/${unknown}/cashier-key/reissue`, {}, { headers: session }),
      sys.http.get(`/merchant/v1/shops/${unknown}`, { headers: me.merchant.keys }),
    ];
    for (const res of await Promise.all(cells)) {
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 404, code: 'common.err.not_found' });
    }
  });

  it('refuses creating, rotating and reissuing without a confirmed email (403), but reads and PATCH work', async () => {
    const { merchant, shop } = await sys.merchantWithShop({ emailConfirmed: false, webhookUrl: receiver.url });
    const session = { Authorization: `Bearer ${await sys.login(merchant)}` };
    const refused = [
      sys.http.post('/api/v1/shops', { name: 'Unconfirmed' }, { headers: session }),
      sys.http.post(`/api/v1/shops/${shop.id}/webhook-secret/rotate`, {}, { headers: session }),
      sys.http.post(`/api/v1/shops/${shop.id}/cashier-key/reissue`, {}, { headers: session }),
    ];
    for (const res of await Promise.all(refused)) {
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 403, code: 'account.err.email_not_confirmed' });
    }
    expect((await sys.http.get(`/api/v1/shops/${shop.id}`, { headers: session })).status).toBe(200);
    expect((await sys.http.call('PATCH', `/api/v1/shops/${shop.id}`, { headers: session, body: { fee_payer: 'client' } })).body.fee_payer).toBe(
      'client',
    );
    // Nothing was rotated or reissued: the audit log names no shop change.
    const audit = await sys.http.get('/api/v1/audit-events', { headers: session });
    expect(audit.body.audit_events.filter((e: { type: string }) => e.type.startsWith('shop.'))).toEqual([]);
  });
});
