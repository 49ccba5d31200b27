import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AccountRole } from '@pl/contracts';
import { eventually } from '@pl/testing';
import type { ApiResponse } from '../support/http';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * Every session route × every role, each cell with its exact status and code (docs/adr/0030). The routes are read
 * from the OpenAPI document, so a session route without a row fails here. What each role may do is the spec's table
 * (accounts-and-teams.md, "Teams and roles"), written out below on its own, not read from the code that enforces it.
 * A cell that may succeed gets fresh resources, so cells are independent.
 */
jest.setTimeout(60_000);

const ROLES = ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'] as const satisfies readonly AccountRole[];
type Role = (typeof ROLES)[number];

/** The spec's table, by row: the roles that may. `self` is what is not in it: a user's own sessions, password and accounts. */
const MAY = {
  read: ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'],
  operateLinks: ['owner', 'admin', 'developer', 'finance', 'support'],
  integrate: ['owner', 'admin', 'developer'],
  readMoney: ['owner', 'admin', 'finance', 'support', 'viewer'],
  moveMoney: ['owner', 'admin', 'finance'],
  team: ['owner', 'admin'],
  audit: ['owner', 'admin'],
  self: ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'],
} as const satisfies Record<string, readonly Role[]>;
type Rule = keyof typeof MAY;

/**
 * One cell's coordinates besides the route. Today the role; the second factor's state (none, enrolled, verified within
 * 10 minutes, stale) is the next dimension: a field here, its values in `CELLS`, a member in that state in `memberOf`,
 * and its rule in `expected`.
 */
interface Cell {
  role: Role;
}
const CELLS: readonly Cell[] = ROLES.map((role) => ({ role }));
const cellName = (cell: Cell): string => Object.values(cell).join(' × ');

type Outcome = [number, string | null];
const E403: Outcome = [403, 'common.err.forbidden'];
const E404: Outcome = [404, 'common.err.not_found'];

/** A signed-in member of the account, their session switched to it. */
interface Member {
  userId: string;
  email: string;
  password: string;
  auth: Record<string, string>;
}

interface Row {
  rule: Rule;
  /** The status of a cell whose role may. */
  success: number;
  /** Makes the request as `m` (its own fresh resources when the cell could change them). */
  call: (m: Member) => Promise<ApiResponse>;
  /** The cell needs a member of its own: the call ends or changes the member's session or password. */
  freshMember?: true;
  /** The request for an id that names nothing (a path with an id): every role gets 404, as existence comes before role. */
  unknown?: (m: Member) => Promise<ApiResponse>;
}

const expected = (row: Row, cell: Cell): Outcome => ((MAY[row.rule] as readonly Role[]).includes(cell.role) ? [row.success, null] : E403);

let sys: TestSystem;
let receiver: WebhookReceiver;
let owner: TestMerchant;
let ownerAuth: Record<string, string>;
let shop: TestShop;
/** Read by the rows that only read: one of each, made before the rows run. */
let shared: { link: string; refund: string; eventId: string; unresolved: string };
const members = new Map<string, Member>();

beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_ACCOUNT_MAIL_PER_IP_PER_HOUR: '1000', RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '1000' } });
  receiver = await WebhookReceiver.start();
  const made = await sys.merchantWithShop({ webhookUrl: receiver.url });
  owner = made.merchant;
  shop = made.shop;
  ownerAuth = { Authorization: `Bearer ${await sys.login(owner)}` };
  const { linkId } = await paidLinkDelivery();
  shared = {
    link: linkId,
    refund: await liveRefund(),
    eventId: await eventOf(linkId),
    unresolved: await unresolvedPayment(),
  };
  for (const cell of CELLS) members.set(cellName(cell), cell.role === 'owner' ? await ownerMember() : await join(cell.role));
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await sys?.stop();
});

const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

/** The account's own owner, the user the operators' CLI made with the account. */
async function ownerMember(): Promise<Member> {
  const [user] = await sys.sql<{ id: string }>('SELECT id FROM gateway.users WHERE email = $1', [owner.email]);
  return { userId: user!.id, email: owner.email, password: owner.password, auth: ownerAuth };
}

/** A user of another account made a member of this one with `role`, signed in and switched to it. */
async function join(role: Role): Promise<Member> {
  const m = await sys.merchant();
  const [user] = await sys.sql<{ id: string }>('SELECT id FROM gateway.users WHERE email = $1', [m.email]);
  await sys.sql('INSERT INTO gateway.memberships (user_id, merchant_id, role) VALUES ($1, $2, $3)', [user!.id, owner.id, role]);
  const auth = bearer(await sys.login(m));
  const switched = await sys.http.post('/api/v1/auth/switch', { merchant_id: owner.id }, { headers: auth });
  expect(switched.status).toBe(200);
  return { userId: user!.id, email: m.email, password: m.password, auth };
}

/** The member of a role whose session the read-only cells use. */
const inRole = (role: Role): Member => members.get(cellName({ role }))!;
const memberOf = async (cell: Cell, row: Row): Promise<Member> => (row.freshMember ? join(cell.role) : members.get(cellName(cell))!);

const createLink = async (keys: Record<string, string> = owner.keys): Promise<string> => {
  const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 5 }, { headers: keys });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const paidLink = async (): Promise<string> => {
  const id = await createLink();
  expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
  return id;
};
/** A paid link and its webhook delivery, once the notifier lists it. */
async function paidLinkDelivery(): Promise<{ linkId: string; deliveryId: string }> {
  const linkId = await paidLink();
  await receiver.nthFor(linkId, 1);
  let deliveryId: string | undefined;
  await eventually(
    async () => {
      const list = await sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${linkId}`, { headers: owner.keys });
      deliveryId = list.body.deliveries?.[0]?.id;
      return deliveryId !== undefined;
    },
    `the delivery of ${linkId} is listed`,
    10_000,
    10,
  );
  return { linkId, deliveryId: deliveryId! };
}
async function liveRefund(): Promise<string> {
  const res = await sys.http.post(`/api/v1/payment-links/${await paidLink()}/refunds`, { amount: '1.00' }, { headers: ownerAuth });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
/** A pending test refund (a test link paid by the simulator), for the simulator of refunds. */
async function testRefund(): Promise<string> {
  const link = await createLink(owner.testKeys);
  expect((await sys.http.post(`/p/${link}/simulate`, { status: 'paid' })).status).toBe(200);
  const res = await sys.http.post(`/api/v1/payment-links/${link}/refunds`, { amount: '1.00' }, { headers: { ...ownerAuth, 'Pl-Mode': 'test' } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
async function eventOf(linkId: string): Promise<string> {
  const res = await sys.http.get(`/merchant/v1/events?payment_link_id=${linkId}`, { headers: owner.keys });
  expect(res.status).toBe(200);
  return res.body.events[0].event_id as string;
}
/** A payment that arrived after its link had failed: an unresolved (late) one. */
async function unresolvedPayment(): Promise<string> {
  const id = await createLink();
  expect((await sys.providerCallback(sandboxPaymentId(id), 'failed')).status).toBe(200);
  expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
  const [row] = await sys.sql<{ id: string }>('SELECT id FROM links.unresolved_payments WHERE link_id = $1', [id]);
  return row!.id;
}
const freshShop = (): Promise<TestShop> => sys.shop(owner.id, { webhookUrl: receiver.url });
/** An extra API key of the account, made by its owner. */
async function apiKey(): Promise<string> {
  const res = await sys.http.post('/api/v1/api-keys', { label: 'role matrix' }, { headers: ownerAuth });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
/** Revokes every key but the pair the account was made with, so the cells never reach the active-key limit. */
async function revokeExtraKeys(): Promise<void> {
  const keys = (await sys.http.get('/api/v1/api-keys', { headers: ownerAuth })).body.api_keys as {
    id: string;
    public_key: string;
    revoked_at: string | null;
  }[];
  for (const k of keys) {
    if (k.revoked_at !== null || k.public_key === owner.apiKey || k.public_key === owner.testApiKey) continue;
    await sys.http.post(`/api/v1/api-keys/${k.id}/revoke`, {}, { headers: ownerAuth });
  }
}
const invitation = async (): Promise<string> => {
  const res = await sys.http.post('/api/v1/invitations', { email: newEmail(), role: 'viewer' }, { headers: ownerAuth });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const newEmail = (): string => `matrix-${randomBytes(6).toString('hex')}@example.com`;

const get = (path: string, m: Member, headers: Record<string, string> = {}) => sys.http.get(path, { headers: { ...m.auth, ...headers } });
const post = (path: string, m: Member, body: unknown = {}, headers: Record<string, string> = {}) =>
  sys.http.post(path, body, { headers: { ...m.auth, ...headers } });
const patch = (path: string, m: Member, body: unknown) => sys.http.call('PATCH', path, { headers: m.auth, body });
const del = (path: string, m: Member) => sys.http.call('DELETE', path, { headers: m.auth });
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const UNKNOWN_SHOP = 2 ** 40;

/** One row per session route of the OpenAPI document, keyed as `METHOD /path` there. */
const ROWS: Record<string, Row> = {
  // A user's own: their session, password, accounts and mail (any role).
  'GET /api/v1/me': { rule: 'self', success: 200, call: (m) => get('/api/v1/me', m) },
  'POST /api/v1/auth/switch': { rule: 'self', success: 200, call: (m) => post('/api/v1/auth/switch', m, { merchant_id: owner.id }) },
  'POST /api/v1/auth/logout': { rule: 'self', success: 204, freshMember: true, call: (m) => post('/api/v1/auth/logout', m) },
  'POST /api/v1/auth/password': {
    rule: 'self',
    success: 204,
    freshMember: true,
    call: (m) => post('/api/v1/auth/password', m, { current_password: m.password, new_password: `matrix passphrase ${randomUUID()}` }),
  },
  'POST /api/v1/auth/confirm-email/resend': { rule: 'self', success: 202, call: (m) => post('/api/v1/auth/confirm-email/resend', m) },
  'GET /api/v1/me/sessions': { rule: 'self', success: 200, call: (m) => get('/api/v1/me/sessions', m) },
  'DELETE /api/v1/me/sessions/{id}': {
    rule: 'self',
    success: 204,
    freshMember: true,
    call: async (m) => del(`/api/v1/me/sessions/${(await get('/api/v1/me/sessions', m)).body.sessions[0].id}`, m),
    unknown: (m) => del(`/api/v1/me/sessions/${UNKNOWN}`, m),
  },
  'POST /api/v1/me/sessions/revoke-others': { rule: 'self', success: 204, call: (m) => post('/api/v1/me/sessions/revoke-others', m) },

  // Members, roles and invitations.
  'GET /api/v1/members': { rule: 'team', success: 200, call: (m) => get('/api/v1/members', m) },
  'PATCH /api/v1/members/{user_id}': {
    rule: 'team',
    success: 200,
    call: async (m) => patch(`/api/v1/members/${(await join('developer')).userId}`, m, { role: 'viewer' }),
    unknown: (m) => patch(`/api/v1/members/${UNKNOWN}`, m, { role: 'viewer' }),
  },
  'DELETE /api/v1/members/{user_id}': {
    rule: 'team',
    success: 204,
    call: async (m) => del(`/api/v1/members/${(await join('developer')).userId}`, m),
    unknown: (m) => del(`/api/v1/members/${UNKNOWN}`, m),
  },
  'GET /api/v1/invitations': { rule: 'team', success: 200, call: (m) => get('/api/v1/invitations', m) },
  'POST /api/v1/invitations': { rule: 'team', success: 201, call: (m) => post('/api/v1/invitations', m, { email: newEmail(), role: 'viewer' }) },
  'DELETE /api/v1/invitations/{id}': {
    rule: 'team',
    success: 204,
    call: async (m) => del(`/api/v1/invitations/${await invitation()}`, m),
    unknown: (m) => del(`/api/v1/invitations/${UNKNOWN}`, m),
  },
  'GET /api/v1/audit-events': { rule: 'audit', success: 200, call: (m) => get('/api/v1/audit-events', m) },

  // Links, shops, deliveries, events: read by all, operated by all but viewers.
  'GET /api/v1/payment-links': { rule: 'read', success: 200, call: (m) => get('/api/v1/payment-links', m) },
  'POST /api/v1/payment-links': {
    rule: 'operateLinks',
    success: 201,
    call: (m) => post('/api/v1/payment-links', m, { shop_id: shop.id, amount: 1 }),
  },
  'GET /api/v1/payment-links/{id}': {
    rule: 'read',
    success: 200,
    call: (m) => get(`/api/v1/payment-links/${shared.link}`, m),
    unknown: (m) => get(`/api/v1/payment-links/${UNKNOWN}`, m),
  },
  'GET /api/v1/payment-links/{id}/attempts': {
    rule: 'read',
    success: 200,
    call: (m) => get(`/api/v1/payment-links/${shared.link}/attempts`, m),
    unknown: (m) => get(`/api/v1/payment-links/${UNKNOWN}/attempts`, m),
  },
  'POST /api/v1/payment-links/{id}/cancel': {
    rule: 'operateLinks',
    success: 200,
    call: async (m) => post(`/api/v1/payment-links/${await createLink()}/cancel`, m),
    unknown: (m) => post(`/api/v1/payment-links/${UNKNOWN}/cancel`, m),
  },
  'GET /api/v1/events': { rule: 'read', success: 200, call: (m) => get('/api/v1/events', m) },
  'GET /api/v1/events/{event_id}': {
    rule: 'read',
    success: 200,
    call: (m) => get(`/api/v1/events/${shared.eventId}`, m),
    unknown: (m) => get(`/api/v1/events/evt_${UNKNOWN}`, m),
  },
  'GET /api/v1/webhook-deliveries': { rule: 'read', success: 200, call: (m) => get(`/api/v1/webhook-deliveries?shop_id=${shop.id}`, m) },
  'POST /api/v1/webhook-deliveries/{id}/resend': {
    rule: 'operateLinks',
    success: 202,
    call: async (m) => post(`/api/v1/webhook-deliveries/${(await paidLinkDelivery()).deliveryId}/resend`, m),
    // No unknown row: a resend has no read by id to probe, so a refused role is 403 even for an unknown delivery (ADR 20).
  },
  'GET /api/v1/shops': { rule: 'read', success: 200, call: (m) => get('/api/v1/shops', m) },
  'GET /api/v1/shops/{id}': {
    rule: 'read',
    success: 200,
    call: (m) => get(`/api/v1/shops/${shop.id}`, m),
    unknown: (m) => get(`/api/v1/shops/${UNKNOWN_SHOP}`, m),
  },

  // API keys, webhook settings and secrets, cashier keys, shop settings, creating shops.
  'POST /api/v1/shops': { rule: 'integrate', success: 201, call: (m) => post('/api/v1/shops', m, { name: 'Matrix shop' }) },
  'PATCH /api/v1/shops/{id}': {
    rule: 'integrate',
    success: 200,
    call: async (m) => patch(`/api/v1/shops/${(await freshShop()).id}`, m, { name: 'Renamed' }),
    unknown: (m) => patch(`/api/v1/shops/${UNKNOWN_SHOP}`, m, { name: 'Renamed' }),
  },
  'POST /api/v1/shops/{id}/webhook-secret/rotate': {
    rule: 'integrate',
    success: 200,
    call: async (m) => post(`/api/v1/shops/${(await freshShop()).id}/webhook-secret/rotate`, m),
    unknown: (m) => post(`/api/v1/shops/${UNKNOWN_SHOP}/webhook-secret/rotate`, m),
  },
  'POST /api/v1/shops/{id}/webhook-test': {
    rule: 'integrate',
    success: 202,
    call: async (m) => post(`/api/v1/shops/${(await freshShop()).id}/webhook-test`, m),
    unknown: (m) => post(`/api/v1/shops/${UNKNOWN_SHOP}/webhook-test`, m),
  },
  'POST /api/v1/shops/{id}/cashier-key/reissue': {
    rule: 'integrate',
    success: 200,
    call: async (m) => post(`/api/v1/shops/${(await freshShop()).id}/cashier-key/reissue`, m),
    unknown: (m) => post(`/api/v1/shops/${UNKNOWN_SHOP}/cashier-key/reissue`, m),
  },
  'GET /api/v1/api-keys': { rule: 'integrate', success: 200, call: (m) => get('/api/v1/api-keys', m) },
  'POST /api/v1/api-keys': { rule: 'integrate', success: 201, call: (m) => post('/api/v1/api-keys', m, { label: 'matrix' }) },
  'POST /api/v1/api-keys/{id}/reissue': {
    rule: 'integrate',
    success: 201,
    call: async (m) => post(`/api/v1/api-keys/${await apiKey()}/reissue`, m),
    unknown: (m) => post(`/api/v1/api-keys/${UNKNOWN}/reissue`, m),
  },
  'POST /api/v1/api-keys/{id}/revoke': {
    rule: 'integrate',
    success: 200,
    call: async (m) => post(`/api/v1/api-keys/${await apiKey()}/revoke`, m),
    unknown: (m) => post(`/api/v1/api-keys/${UNKNOWN}/revoke`, m),
  },

  // Balance, statements, refunds, unresolved payments: moved by owners, admins and finance, read by all but developers.
  'GET /api/v1/shops/{id}/balance': {
    rule: 'readMoney',
    success: 200,
    call: (m) => get(`/api/v1/shops/${shop.id}/balance`, m),
    unknown: (m) => get(`/api/v1/shops/${UNKNOWN_SHOP}/balance`, m),
  },
  'GET /api/v1/balance-transactions': { rule: 'readMoney', success: 200, call: (m) => get('/api/v1/balance-transactions', m) },
  'GET /api/v1/refunds': { rule: 'readMoney', success: 200, call: (m) => get('/api/v1/refunds', m) },
  'GET /api/v1/refunds/{id}': {
    rule: 'readMoney',
    success: 200,
    call: (m) => get(`/api/v1/refunds/${shared.refund}`, m),
    unknown: (m) => get(`/api/v1/refunds/${UNKNOWN}`, m),
  },
  'POST /api/v1/payment-links/{id}/refunds': {
    rule: 'moveMoney',
    success: 201,
    call: async (m) => post(`/api/v1/payment-links/${await paidLink()}/refunds`, m, { amount: '1.00' }),
    unknown: (m) => post(`/api/v1/payment-links/${UNKNOWN}/refunds`, m, { amount: '1.00' }),
  },
  'POST /api/v1/refunds/{id}/simulate': {
    rule: 'moveMoney',
    success: 200,
    call: async (m) => post(`/api/v1/refunds/${await testRefund()}/simulate`, m, { status: 'succeeded' }, { 'Pl-Mode': 'test' }),
    unknown: (m) => post(`/api/v1/refunds/${UNKNOWN}/simulate`, m, { status: 'succeeded' }, { 'Pl-Mode': 'test' }),
  },
  'GET /api/v1/unresolved-payments': { rule: 'readMoney', success: 200, call: (m) => get('/api/v1/unresolved-payments', m) },
  'GET /api/v1/unresolved-payments/{id}': {
    rule: 'readMoney',
    success: 200,
    call: (m) => get(`/api/v1/unresolved-payments/${shared.unresolved}`, m),
    unknown: (m) => get(`/api/v1/unresolved-payments/${UNKNOWN}`, m),
  },
  'POST /api/v1/unresolved-payments/{id}/settle': {
    rule: 'moveMoney',
    success: 200,
    call: async (m) => post(`/api/v1/unresolved-payments/${await unresolvedPayment()}/settle`, m),
    unknown: (m) => post(`/api/v1/unresolved-payments/${UNKNOWN}/settle`, m),
  },
  'POST /api/v1/unresolved-payments/{id}/refund': {
    rule: 'moveMoney',
    success: 200,
    call: async (m) => post(`/api/v1/unresolved-payments/${await unresolvedPayment()}/refund`, m),
    unknown: (m) => post(`/api/v1/unresolved-payments/${UNKNOWN}/refund`, m),
  },
};

/** Every operation of the OpenAPI document a dashboard session may call. */
function sessionRoutes(): string[] {
  const document = JSON.parse(readFileSync(resolve(__dirname, '../../docs/openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string; security?: Record<string, unknown>[] }>>;
  };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, op]) => op.operationId !== undefined && (op.security ?? []).some((s) => 'SessionToken' in s))
      .map(([method]) => `${method.toUpperCase()} ${path}`),
  );
}

test('has a row for every session route of the OpenAPI document, and none for a route it does not have', () => {
  const documented = sessionRoutes().sort();
  expect(documented.length).toBeGreaterThan(40);
  expect(Object.keys(ROWS).sort()).toEqual(documented);
});

describe.each(Object.entries(ROWS))('%s', (route, row) => {
  const KEY_ROUTES = /^(GET|POST) \/api\/v1\/api-keys/;
  afterEach(async () => {
    if (KEY_ROUTES.test(route)) await revokeExtraKeys();
  });

  it(`answers each ${Object.keys(CELLS[0]!).join(' × ')} as the spec's table says`, async () => {
    const answers: { cell: string; status: number; code: string | null }[] = [];
    const wanted: typeof answers = [];
    for (const cell of CELLS) {
      const res = await row.call(await memberOf(cell, row));
      answers.push({ cell: cellName(cell), status: res.status, code: res.body?.error?.code ?? null });
      const [status, code] = expected(row, cell);
      wanted.push({ cell: cellName(cell), status, code });
    }
    expect(answers).toEqual(wanted);
  });

  if (row.unknown) {
    const unknown = row.unknown;
    it('answers an id that names nothing 404 to every role: existence before role', async () => {
      const answers: { cell: string; status: number; code: string | null }[] = [];
      for (const cell of CELLS) {
        const res = await unknown(await memberOf(cell, row));
        answers.push({ cell: cellName(cell), status: res.status, code: res.body?.error?.code ?? null });
      }
      expect(answers).toEqual(CELLS.map((cell) => ({ cell: cellName(cell), status: E404[0], code: E404[1] })));
    });
  }
});

describe('a refusal by role comes before any state', () => {
  it.each<[string, Role, Role, (m: Member, key: string) => Promise<ApiResponse>, number]>([
    [
      'POST /api/v1/payment-links',
      'viewer',
      'support',
      (m, key) => post('/api/v1/payment-links', m, { shop_id: shop.id, amount: 2 }, { 'Idempotency-Key': key }),
      201,
    ],
    [
      'POST /api/v1/api-keys',
      'finance',
      'developer',
      (m, key) => post('/api/v1/api-keys', m, { label: 'before state' }, { 'Idempotency-Key': key }),
      201,
    ],
  ])('%s: a %s claims no Idempotency-Key, so a %s then uses it afresh', async (_route, refused, allowed, call, success) => {
    const key = `role-${randomUUID()}`;
    const first = await call(inRole(refused), key);
    expect([first.status, first.body?.error?.code]).toEqual(E403);
    const second = await call(inRole(allowed), key);
    expect(second.status).toBe(success);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    await revokeExtraKeys();
  });

  it('a refused settle leaves the unresolved payment unresolved, for a role that may to settle', async () => {
    const id = await unresolvedPayment();
    const refused = await post(`/api/v1/unresolved-payments/${id}/settle`, inRole('developer'));
    expect([refused.status, refused.body?.error?.code]).toEqual(E403);
    expect((await get(`/api/v1/unresolved-payments/${id}`, inRole('owner'))).body.status).toBe('unresolved');
    expect((await post(`/api/v1/unresolved-payments/${id}/settle`, inRole('finance'))).body.status).toBe('settled');
  });
});
