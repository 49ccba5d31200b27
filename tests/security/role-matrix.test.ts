import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AccountRole } from '@pl/contracts';
import { eventually } from '@pl/testing';
import { createClient } from 'redis';
import { SoftwareAuthenticator } from '../../services/gateway/test/software-authenticator';
import type { ApiResponse } from '../support/http';
import { enrolledFactors, totpCode } from '../support/second-factor';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * Every session route × every role × every state of the second factor, each cell with its exact status and code
 * (docs/adr/0030). The routes are read
 * from the OpenAPI document, so a session route without a row fails here. What each role may do is the spec's table
 * (accounts-and-teams.md, "Teams and roles"), written out below on its own, not read from the code that enforces it.
 * A cell that may succeed gets fresh resources, so cells are independent. A last row set asks every route as a member
 * without a second factor of an account that requires one.
 *
 * Members cost a password hash and a sign-in each (and TOTP enrolled for most), the bulk of this file's time: a cell
 * gets a member of its own only when its answer is to be a success on a row that ends or changes the member (a
 * refusal changes nothing, so it asks the cell's shared member, which every later row would show changed), and the
 * members the team rows change or remove are bare memberships, replaced only once a call has succeeded.
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
  // payouts.md: destinations and payouts "owner, admin, finance"; approving "another member than its creator".
  payouts: ['owner', 'admin', 'finance'],
  approvePayouts: ['owner', 'admin', 'finance'],
  // "An account's owner may require a second factor of all members" (the spec's "Second factors"): the owner alone.
  accountPolicy: ['owner'],
  self: ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'],
} as const satisfies Record<string, readonly Role[]>;
type Rule = keyof typeof MAY;

/**
 * The session's second factor (accounts-and-teams.md, "Step-up"): `none`, the user has none; `enrolled`, the user has
 * TOTP but the session never verified it (opened before enrolling); `verified`, within the last 10 minutes; `stale`,
 * verified 10 minutes ago or more.
 */
const FACTORS = ['none', 'enrolled', 'verified', 'stale'] as const;
type Factor = (typeof FACTORS)[number];

/**
 * One cell's coordinates besides the route. Another dimension is a field here, its values in `CELLS`, a member in
 * that state in `join`, and its rule in `expected`.
 */
interface Cell {
  role: Role;
  factor: Factor;
}
const CELLS: readonly Cell[] = ROLES.flatMap((role) => FACTORS.map((factor) => ({ role, factor })));
const cellName = (cell: Cell): string => Object.values(cell).join(' × ');

type Outcome = [number, string | null];
const E403: Outcome = [403, 'common.err.forbidden'];
const E404: Outcome = [404, 'common.err.not_found'];
const TWO_FACTOR_REQUIRED: Outcome = [403, 'auth.err.two_factor_required'];
const STEP_UP_REQUIRED: Outcome = [403, 'auth.err.step_up_required'];
const ALREADY_ON: Outcome = [409, 'two_factor.err.already_enabled'];
const NOT_ON: Outcome = [409, 'two_factor.err.not_enabled'];

/** A signed-in member of the account, their session switched to it. */
interface Member {
  userId: string;
  email: string;
  password: string;
  auth: Record<string, string>;
  /** The account the session is switched to. */
  account: string;
}

interface Row {
  rule: Rule;
  /** The status of a cell whose role may. */
  success: number;
  /** Makes the request as `m` (its own fresh resources when the cell could change them). */
  call: (m: Member) => Promise<ApiResponse>;
  /**
   * A cell whose answer is a success needs a member of its own: the call ends or changes the member's session,
   * password or second factors. A refused cell asks the shared member.
   */
  freshMember?: true;
  /** The request for an id that names nothing (a path with an id): every role gets 404, as existence comes before role. */
  unknown?: (m: Member) => Promise<ApiResponse>;
  /** The spec's step-up list has it: the role may, yet only with a second factor verified in the last 10 minutes. */
  stepUp?: true;
  /** The route's own answer, for a role that may and past step-up, where the second factor's state changes it. */
  inState?: Partial<Record<Factor, Outcome>>;
}

/**
 * The role first (a role that may never is not asked for a factor), then step-up for the routes the spec lists, then
 * the route's own answer; every other route does not look at the second factor.
 */
function expected(row: Row, cell: Cell): Outcome {
  if (!(MAY[row.rule] as readonly Role[]).includes(cell.role)) return E403;
  if (row.stepUp && cell.factor === 'none') return row.inState?.none ?? TWO_FACTOR_REQUIRED;
  if (row.stepUp && (cell.factor === 'enrolled' || cell.factor === 'stale')) return STEP_UP_REQUIRED;
  return row.inState?.[cell.factor] ?? [row.success, null];
}

let sys: TestSystem;
let receiver: WebhookReceiver;
let owner: TestMerchant;
let ownerAuth: Record<string, string>;
let shop: TestShop;
/** Read by the rows that only read: one of each, made before the rows run. */
let shared: { link: string; refund: string; eventId: string; unresolved: string; destination: string; payout: string };
const members = new Map<string, Member>();
let redis: ReturnType<typeof createClient>;

beforeAll(async () => {
  sys = await startSystem({
    env: {
      RATE_LIMIT_ACCOUNT_MAIL_PER_IP_PER_HOUR: '1000',
      RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '1000',
      // Payouts at once: no hold, no cool-down; 1000.00 and up wait for approval.
      PAYOUT_HOLD_HOURS: '0',
      PAYOUT_DESTINATION_COOLDOWN_HOURS: '0',
      PAYOUT_APPROVAL_THRESHOLD: '1000.00',
    },
  });
  redis = createClient({ url: sys.env.REDIS_URL });
  await redis.connect();
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
    destination: '',
    payout: '',
  };
  // The payouts' money (each approve or reject cell takes 1000.00 in a fresh payout), and their maker.
  await paidLink(200_000);
  const testLink = await createLink(owner.testKeys, 50_000);
  expect((await sys.http.post(`/p/${testLink}/simulate`, { status: 'paid' })).status).toBe(200);
  payoutMaker = await join('finance', 'verified');
  shared.destination = await payoutDestination();
  shared.payout = await payoutOf('100.00');
  // Made side by side: a member's making is mostly waiting on the gateway (a password hash, requests), which the
  // others' can fill.
  const cellMembers = await Promise.all(
    CELLS.map((cell) => (cell.role === 'owner' && cell.factor === 'verified' ? ownerMember() : join(cell.role, cell.factor))),
  );
  CELLS.forEach((cell, i) => members.set(cellName(cell), cellMembers[i]!));
}, 180_000);
afterAll(async () => {
  await redis?.close();
  await receiver?.close();
  await sys?.stop();
});

const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

/**
 * A finance member who makes the payouts the rows decide on: no cell is its creator, so approving is the role's and
 * step-up's question only. Its session is stepped up anew before each use (a run outlasts 10 minutes).
 */
let payoutMaker: Member;
async function makerHeaders(mode: 'live' | 'test' = 'live'): Promise<Record<string, string>> {
  await rewriteSession(payoutMaker.auth.Authorization!.slice('Bearer '.length), (s) => ({ ...s, second_factor_at: Date.now() }));
  return mode === 'test' ? { ...payoutMaker.auth, 'Pl-Mode': 'test' } : payoutMaker.auth;
}
const BANK_ACCOUNT = { recipient_name: 'Matrix LLC', inn: '7707083893', kpp: '773601001', bik: '044525225', account: '40702810238000001234' };
async function payoutDestination(mode: 'live' | 'test' = 'live'): Promise<string> {
  const res = await sys.http.post(
    '/api/v1/payout-destinations',
    { type: 'bank_account', bank_account: BANK_ACCOUNT },
    { headers: await makerHeaders(mode) },
  );
  expect(res.status).toBe(201);
  return res.body.id as string;
}
/** A payout by the maker: approved under 1000.00, awaiting approval from it. */
async function payoutOf(amount: string, mode: 'live' | 'test' = 'live'): Promise<string> {
  const destination = mode === 'live' ? shared.destination : await payoutDestination('test');
  const res = await sys.http.post(
    '/api/v1/payouts',
    { shop_id: shop.id, amount, destination_id: destination },
    { headers: await makerHeaders(mode) },
  );
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** The account's own owner, the user the operators' CLI made with the account. */
async function ownerMember(): Promise<Member> {
  const [user] = await sys.sql<{ id: string }>('SELECT id FROM gateway.users WHERE email = $1', [owner.email]);
  return { userId: user!.id, email: owner.email, password: owner.password, auth: ownerAuth, account: owner.id };
}

/**
 * A user of another account made a member of `account` with `role`, signed in, switched to it, its second factor in
 * `factor`'s state: `none` signs in with the password alone; the others enroll TOTP (which verifies it), then the
 * session's stored time of verification is taken away (`enrolled`) or moved 10 minutes and a second back (`stale`), as
 * the session store keeps it (services/gateway/src/data/session.store.ts), so no test waits 10 minutes.
 */
async function join(role: Role, factor: Factor, account: string = owner.id): Promise<Member> {
  const m = await bareMember(role, account);
  const token = factor === 'none' ? await passwordOnlySession(m) : await sys.login(m);
  const auth = bearer(token);
  const switched = await sys.http.post('/api/v1/auth/switch', { merchant_id: account }, { headers: auth });
  expect(switched.status).toBe(200);
  if (factor === 'enrolled') await rewriteSession(token, ({ second_factor_at: _verified, ...rest }) => rest);
  if (factor === 'stale') await rewriteSession(token, (s) => ({ ...s, second_factor_at: Date.now() - STALE_AFTER_MS - 1000 }));
  return { userId: m.userId, email: m.email, password: m.password, auth, account };
}
/** A user of another account made a member of `account` with `role`, never signed in. */
async function bareMember(role: Role, account: string = owner.id): Promise<TestMerchant> {
  const m = await sys.merchant();
  await sys.sql('INSERT INTO gateway.memberships (user_id, merchant_id, role) VALUES ($1, $2, $3)', [m.userId, account, role]);
  return m;
}
/**
 * The developer the team rows change or remove: one, until a call succeeds on it (a role changed, a member removed),
 * then a new one, so each success acts on a member as it was made.
 */
let teamTarget: string | undefined;
async function onTeamTarget(call: (userId: string) => Promise<ApiResponse>): Promise<ApiResponse> {
  teamTarget ??= (await bareMember('developer')).userId;
  const res = await call(teamTarget);
  if (res.status < 300) teamTarget = undefined;
  return res;
}
const STALE_AFTER_MS = 10 * 60 * 1000;

/** A session of a user who never enrolled a second factor: the password is all sign-in asks. */
async function passwordOnlySession(m: { email: string; password: string }): Promise<string> {
  const res = await sys.http.post('/api/v1/auth/login', { email: m.email, password: m.password });
  expect([res.status, res.body.two_factor_required ?? false]).toEqual([200, false]);
  return res.body.session_token as string;
}

/** Changes a session's record where the gateway keeps it, keeping its time to live. */
async function rewriteSession(token: string, change: (stored: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
  const key = `${sys.env.REDIS_KEY_PREFIX ?? ''}session:${createHash('sha256').update(token, 'utf8').digest('hex')}`;
  const stored = JSON.parse((await redis.get(key)) ?? 'null') as Record<string, unknown> | null;
  expect(stored).not.toBeNull();
  await redis.set(key, JSON.stringify(change(stored!)), { KEEPTTL: true });
}

/** The member of a role whose session the read-only cells use (second factor verified). */
const inRole = (role: Role): Member => members.get(cellName({ role, factor: 'verified' }))!;
/** The member a cell asks, its answer to be `outcome`: its own when that is a success on a row that changes members. */
const memberOf = async (cell: Cell, row: Row, outcome: Outcome = expected(row, cell)): Promise<Member> =>
  row.freshMember && succeeds(outcome) ? join(cell.role, cell.factor) : members.get(cellName(cell))!;
const succeeds = ([status]: Outcome): boolean => status < 300;

const createLink = async (keys: Record<string, string> = owner.keys, amount = 5): Promise<string> => {
  const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount }, { headers: keys });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const paidLink = async (amount = 5): Promise<string> => {
  const id = await createLink(owner.keys, amount);
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
  // A row makes one per cell: keep under the account's limit of active keys.
  await revokeExtraKeys();
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
/** The gateway's own address in the test system (its config's default): the passkeys' relying party. */
const PUBLIC_BASE_URL = 'http://localhost:8080';
/** A TOTP secret no user has: its codes are wrong for everyone. */
const UNUSED_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/**
 * A passkey of the member's user (a row, as registering one would store it, so the member's session is not stepped up
 * by a registration); for a user without a second factor, an id that names nothing, so they stay without one.
 */
async function passkeyOf(m: Member): Promise<string> {
  const [totp] = await sys.sql<{ on: boolean }>('SELECT confirmed_at IS NOT NULL AS on FROM gateway.user_totp WHERE user_id = $1', [m.userId]);
  if (totp?.on !== true) return UNKNOWN;
  const id = randomUUID();
  await sys.sql('INSERT INTO gateway.passkeys (id, user_id, credential_id, public_key, name) VALUES ($1, $2, $3, $4, $5)', [
    id,
    m.userId,
    randomBytes(32).toString('base64url'),
    randomBytes(65),
    'Matrix key',
  ]);
  return id;
}

/** One row per session route of the OpenAPI document, keyed as `METHOD /path` there. */
const ROWS: Record<string, Row> = {
  // A user's own: their session, password, accounts and mail (any role).
  'GET /api/v1/me': { rule: 'self', success: 200, call: (m) => get('/api/v1/me', m) },
  'POST /api/v1/auth/switch': { rule: 'self', success: 200, call: (m) => post('/api/v1/auth/switch', m, { merchant_id: m.account }) },
  'POST /api/v1/auth/logout': { rule: 'self', success: 204, freshMember: true, call: (m) => post('/api/v1/auth/logout', m) },
  'POST /api/v1/auth/password': {
    rule: 'self',
    success: 204,
    freshMember: true,
    stepUp: true,
    call: (m) => post('/api/v1/auth/password', m, { current_password: m.password, new_password: `matrix passphrase ${randomUUID()}` }),
  },
  'POST /api/v1/auth/confirm-email/resend': { rule: 'self', success: 202, call: (m) => post('/api/v1/auth/confirm-email/resend', m) },
  'GET /api/v1/me/sessions': { rule: 'self', success: 200, call: (m) => get('/api/v1/me/sessions', m) },
  'DELETE /api/v1/me/sessions/{id}': {
    rule: 'self',
    success: 204,
    freshMember: true,
    // A member refused the list (an account's two-factor policy) asks for an unknown id: the refusal comes first.
    call: async (m) => del(`/api/v1/me/sessions/${(await get('/api/v1/me/sessions', m)).body.sessions?.[0]?.id ?? UNKNOWN}`, m),
    unknown: (m) => del(`/api/v1/me/sessions/${UNKNOWN}`, m),
  },
  'POST /api/v1/me/sessions/revoke-others': { rule: 'self', success: 204, call: (m) => post('/api/v1/me/sessions/revoke-others', m) },

  // A user's own second factors, and step-up (any role; what turns a factor off or renews one steps up).
  'POST /api/v1/auth/step-up': {
    rule: 'self',
    success: 204,
    freshMember: true,
    // A TOTP code works once per 30 s: the next period's, which the gateway accepts for clock drift, as enrolling used this one.
    call: (m) =>
      post('/api/v1/auth/step-up', m, { code: totpCode(enrolledFactors(m.email)?.secret ?? UNUSED_SECRET, new Date(Date.now() + 30_000)) }),
    inState: { none: TWO_FACTOR_REQUIRED },
  },
  'POST /api/v1/auth/step-up/passkey-options': {
    rule: 'self',
    success: 200,
    call: (m) => post('/api/v1/auth/step-up/passkey-options', m),
    // The members have TOTP and no passkey (or nothing at all): there is nothing to ask a passkey of.
    inState: { none: NOT_ON, enrolled: NOT_ON, verified: NOT_ON, stale: NOT_ON },
  },
  'POST /api/v1/me/2fa/totp': {
    rule: 'self',
    success: 201,
    call: (m) => post('/api/v1/me/2fa/totp', m),
    inState: { enrolled: ALREADY_ON, verified: ALREADY_ON, stale: ALREADY_ON },
  },
  'POST /api/v1/me/2fa/totp/confirm': {
    rule: 'self',
    success: 200,
    freshMember: true,
    call: async (m) => {
      const started = await post('/api/v1/me/2fa/totp', m);
      return post('/api/v1/me/2fa/totp/confirm', m, { code: totpCode(started.status === 201 ? (started.body.secret as string) : UNUSED_SECRET) });
    },
    inState: { enrolled: ALREADY_ON, verified: ALREADY_ON, stale: ALREADY_ON },
  },
  'DELETE /api/v1/me/2fa/totp': { rule: 'self', success: 204, freshMember: true, stepUp: true, call: (m) => del('/api/v1/me/2fa/totp', m) },
  // Step-up, beyond the spec's list (ADR 0028): a new set of recovery codes is a new second factor.
  'POST /api/v1/me/2fa/recovery-codes': { rule: 'self', success: 201, stepUp: true, call: (m) => post('/api/v1/me/2fa/recovery-codes', m) },
  'POST /api/v1/me/2fa/passkeys/registration-options': {
    rule: 'self',
    success: 200,
    call: (m) => post('/api/v1/me/2fa/passkeys/registration-options', m),
  },
  'POST /api/v1/me/2fa/passkeys': {
    rule: 'self',
    success: 201,
    // Registering a passkey verifies it, so the member's state is not what it was.
    freshMember: true,
    // Step-up for a user who has a second factor already: else a stale session would step itself up with a key of
    // its own. A user with none is enrolling (the row's own answer for none overrides step-up's two_factor_required).
    stepUp: true,
    inState: { none: [201, null] },
    call: async (m) => {
      const options = await post('/api/v1/me/2fa/passkeys/registration-options', m);
      expect(options.status).toBe(200);
      const response = new SoftwareAuthenticator(PUBLIC_BASE_URL).register(options.body as { challenge: string });
      return post('/api/v1/me/2fa/passkeys', m, { name: 'Matrix key', response });
    },
  },
  'GET /api/v1/me/2fa/passkeys': { rule: 'self', success: 200, call: (m) => get('/api/v1/me/2fa/passkeys', m) },
  'PATCH /api/v1/me/2fa/passkeys/{id}': {
    rule: 'self',
    success: 200,
    call: async (m) => patch(`/api/v1/me/2fa/passkeys/${await passkeyOf(m)}`, m, { name: 'Renamed key' }),
    unknown: (m) => patch(`/api/v1/me/2fa/passkeys/${UNKNOWN}`, m, { name: 'Renamed key' }),
    // A user without a second factor has no passkey to name.
    inState: { none: E404 },
  },
  // Removing a passkey is turning a second factor off (ADR 0029).
  'DELETE /api/v1/me/2fa/passkeys/{id}': {
    rule: 'self',
    success: 204,
    stepUp: true,
    call: async (m) => del(`/api/v1/me/2fa/passkeys/${await passkeyOf(m)}`, m),
  },
  // The account's two-factor policy. Step-up: not in the spec's list, turning it off weakens every member (ADR 0028).
  'PATCH /api/v1/account': {
    rule: 'accountPolicy',
    success: 200,
    stepUp: true,
    call: (m) => patch('/api/v1/account', m, { require_two_factor: false }),
  },

  // The member's own settings in the account: the daily report mail is for roles that read reports (ADR 49).
  'GET /api/v1/me/preferences': { rule: 'readMoney', success: 200, call: (m) => get('/api/v1/me/preferences', m) },
  'PATCH /api/v1/me/preferences': {
    rule: 'readMoney',
    success: 200,
    call: (m) => patch('/api/v1/me/preferences', m, { daily_report_mail: true }),
  },

  // Members, roles and invitations.
  'GET /api/v1/members': { rule: 'team', success: 200, call: (m) => get('/api/v1/members', m) },
  'PATCH /api/v1/members/{user_id}': {
    rule: 'team',
    success: 200,
    stepUp: true,
    call: (m) => onTeamTarget((userId) => patch(`/api/v1/members/${userId}`, m, { role: 'viewer' })),
    unknown: (m) => patch(`/api/v1/members/${UNKNOWN}`, m, { role: 'viewer' }),
  },
  'DELETE /api/v1/members/{user_id}': {
    rule: 'team',
    success: 204,
    stepUp: true,
    call: (m) => onTeamTarget((userId) => del(`/api/v1/members/${userId}`, m)),
    unknown: (m) => del(`/api/v1/members/${UNKNOWN}`, m),
  },
  'GET /api/v1/invitations': { rule: 'team', success: 200, call: (m) => get('/api/v1/invitations', m) },
  'POST /api/v1/invitations': {
    rule: 'team',
    success: 201,
    stepUp: true,
    call: (m) => post('/api/v1/invitations', m, { email: newEmail(), role: 'viewer' }),
  },
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
  // docs/adr/0046: the roles that make payouts set a shop's schedule, with step-up (a schedule sends money on its own).
  'PUT /api/v1/shops/{id}/payout-schedule': {
    rule: 'payouts',
    success: 200,
    stepUp: true,
    call: (m) => sys.http.call('PUT', `/api/v1/shops/${shop.id}/payout-schedule`, { headers: m.auth, body: { interval: 'manual' } }),
    unknown: (m) => sys.http.call('PUT', `/api/v1/shops/${UNKNOWN_SHOP}/payout-schedule`, { headers: m.auth, body: { interval: 'manual' } }),
  },
  'GET /api/v1/shops/{id}/next-payout': {
    rule: 'readMoney',
    success: 200,
    call: (m) => get(`/api/v1/shops/${shop.id}/next-payout`, m),
    unknown: (m) => get(`/api/v1/shops/${UNKNOWN_SHOP}/next-payout`, m),
  },
  'POST /api/v1/shops/{id}/webhook-secret/rotate': {
    rule: 'integrate',
    success: 200,
    stepUp: true,
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
    stepUp: true,
    call: async (m) => post(`/api/v1/shops/${(await freshShop()).id}/cashier-key/reissue`, m),
    unknown: (m) => post(`/api/v1/shops/${UNKNOWN_SHOP}/cashier-key/reissue`, m),
  },
  'GET /api/v1/api-keys': { rule: 'integrate', success: 200, call: (m) => get('/api/v1/api-keys', m) },
  'POST /api/v1/api-keys': { rule: 'integrate', success: 201, stepUp: true, call: (m) => post('/api/v1/api-keys', m, { label: 'matrix' }) },
  'POST /api/v1/api-keys/{id}/reissue': {
    rule: 'integrate',
    success: 201,
    stepUp: true,
    call: async (m) => post(`/api/v1/api-keys/${await apiKey()}/reissue`, m),
    unknown: (m) => post(`/api/v1/api-keys/${UNKNOWN}/reissue`, m),
  },
  'POST /api/v1/api-keys/{id}/revoke': {
    rule: 'integrate',
    success: 200,
    stepUp: true,
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
  'GET /api/v1/reports/daily': {
    rule: 'readMoney',
    success: 200,
    call: (m) => get(`/api/v1/reports/daily?shop_id=${shop.id}&date=2026-11-20`, m),
    unknown: (m) => get(`/api/v1/reports/daily?shop_id=${UNKNOWN_SHOP}&date=2026-11-20`, m),
  },
  'GET /api/v1/reports/summary': {
    rule: 'readMoney',
    success: 200,
    call: (m) => get(`/api/v1/reports/summary?shop_id=${shop.id}`, m),
    unknown: (m) => get(`/api/v1/reports/summary?shop_id=${UNKNOWN_SHOP}`, m),
  },
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
    stepUp: true,
    call: async (m) => post(`/api/v1/unresolved-payments/${await unresolvedPayment()}/settle`, m),
    unknown: (m) => post(`/api/v1/unresolved-payments/${UNKNOWN}/settle`, m),
  },
  'POST /api/v1/unresolved-payments/{id}/refund': {
    rule: 'moveMoney',
    success: 200,
    stepUp: true,
    call: async (m) => post(`/api/v1/unresolved-payments/${await unresolvedPayment()}/refund`, m),
    unknown: (m) => post(`/api/v1/unresolved-payments/${UNKNOWN}/refund`, m),
  },

  // Payouts (docs/payouts.md): reading is reading money; making, approving, rejecting and canceling, the roles that
  // move money (owner, admin, finance); making a destination or a payout, and approving, step up.
  'GET /api/v1/payout-destinations': { rule: 'readMoney', success: 200, call: (m) => get('/api/v1/payout-destinations', m) },
  'POST /api/v1/payout-destinations': {
    rule: 'payouts',
    success: 201,
    stepUp: true,
    call: (m) => post('/api/v1/payout-destinations', m, { type: 'bank_account', bank_account: BANK_ACCOUNT }),
  },
  'GET /api/v1/payout-destinations/{id}': {
    rule: 'readMoney',
    success: 200,
    call: (m) => get(`/api/v1/payout-destinations/${shared.destination}`, m),
    unknown: (m) => get(`/api/v1/payout-destinations/${UNKNOWN}`, m),
  },
  'DELETE /api/v1/payout-destinations/{id}': {
    rule: 'payouts',
    success: 204,
    call: async (m) => del(`/api/v1/payout-destinations/${await payoutDestination()}`, m),
    unknown: (m) => del(`/api/v1/payout-destinations/${UNKNOWN}`, m),
  },
  'GET /api/v1/payouts': { rule: 'readMoney', success: 200, call: (m) => get('/api/v1/payouts', m) },
  'GET /api/v1/payouts/{id}': {
    rule: 'readMoney',
    success: 200,
    call: (m) => get(`/api/v1/payouts/${shared.payout}`, m),
    unknown: (m) => get(`/api/v1/payouts/${UNKNOWN}`, m),
  },
  'POST /api/v1/payouts': {
    rule: 'payouts',
    success: 201,
    stepUp: true,
    call: (m) => post('/api/v1/payouts', m, { shop_id: shop.id, amount: '100.00', destination_id: shared.destination }),
  },
  'POST /api/v1/payouts/{id}/approve': {
    rule: 'approvePayouts',
    success: 200,
    stepUp: true,
    call: async (m) => post(`/api/v1/payouts/${await payoutOf('1000.00')}/approve`, m),
    unknown: (m) => post(`/api/v1/payouts/${UNKNOWN}/approve`, m),
  },
  'POST /api/v1/payouts/{id}/reject': {
    rule: 'approvePayouts',
    success: 200,
    call: async (m) => post(`/api/v1/payouts/${await payoutOf('1000.00')}/reject`, m, { reason: 'Matrix' }),
    unknown: (m) => post(`/api/v1/payouts/${UNKNOWN}/reject`, m, { reason: 'Matrix' }),
  },
  'POST /api/v1/payouts/{id}/cancel': {
    rule: 'payouts',
    success: 200,
    call: async (m) => post(`/api/v1/payouts/${await payoutOf('100.00')}/cancel`, m),
    unknown: (m) => post(`/api/v1/payouts/${UNKNOWN}/cancel`, m),
  },
  'POST /api/v1/payouts/{id}/simulate': {
    rule: 'payouts',
    success: 200,
    call: async (m) => post(`/api/v1/payouts/${await payoutOf('100.00', 'test')}/simulate`, m, { status: 'paid' }, { 'Pl-Mode': 'test' }),
    unknown: (m) => post(`/api/v1/payouts/${UNKNOWN}/simulate`, m, { status: 'paid' }, { 'Pl-Mode': 'test' }),
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
    // With the second factor verified: step-up is checked before the route looks for the record, so an unverified
    // session on a step-up route is refused 403 whatever the id names (the cells above show which).
    it('answers an id that names nothing 404 to every role: existence before role', async () => {
      const verified = CELLS.filter((cell) => cell.factor === 'verified');
      const answers: { cell: string; status: number; code: string | null }[] = [];
      for (const cell of verified) {
        const res = await unknown(await memberOf(cell, row, E404));
        answers.push({ cell: cellName(cell), status: res.status, code: res.body?.error?.code ?? null });
      }
      expect(answers).toEqual(verified.map((cell) => ({ cell: cellName(cell), status: E404[0], code: E404[1] })));
    });
  }
});

describe('a refund over 10,000.00 RUB (the step-up of the refunds route, by amount)', () => {
  // The row above refunds 1.00, under the limit: the role alone decides. Over it, the spec's step-up applies.
  const overLimit: Row = { rule: 'moveMoney', success: 201, stepUp: true, call: async (m) => refundOf(await paidLink(20_000), m, '10000.01') };
  const refundOf = (link: string, m: Member, amount: string) => post(`/api/v1/payment-links/${link}/refunds`, m, { amount });

  it(`answers each ${Object.keys(CELLS[0]!).join(' × ')} as the spec says`, async () => {
    const answers: { cell: string; status: number; code: string | null }[] = [];
    const wanted: typeof answers = [];
    for (const cell of CELLS) {
      const res = await overLimit.call(await memberOf(cell, overLimit));
      answers.push({ cell: cellName(cell), status: res.status, code: res.body?.error?.code ?? null });
      const [status, code] = expected(overLimit, cell);
      wanted.push({ cell: cellName(cell), status, code });
    }
    expect(answers).toEqual(wanted);
  });
});

/**
 * The routes a member without a second factor is served while their account requires one ("signed in only to
 * enroll"): enrolling TOTP or a passkey, reading who they are, and what a session needs to enroll or leave (switching,
 * confirming the email, signing out), as ADR 0028 reads the spec.
 */
const WHILE_ENROLLING = new Set([
  'GET /api/v1/me',
  'POST /api/v1/auth/switch',
  'POST /api/v1/auth/logout',
  'POST /api/v1/auth/confirm-email/resend',
  'POST /api/v1/me/2fa/totp',
  'POST /api/v1/me/2fa/totp/confirm',
  'DELETE /api/v1/me/2fa/totp',
  'POST /api/v1/me/2fa/passkeys/registration-options',
  'POST /api/v1/me/2fa/passkeys',
  'GET /api/v1/me/2fa/passkeys',
  'PATCH /api/v1/me/2fa/passkeys/{id}',
  'DELETE /api/v1/me/2fa/passkeys/{id}',
]);

describe('an account that requires a second factor (require_two_factor), for a member without one', () => {
  // An owner: the role that may do everything, so a refusal here is the policy's, not the role's.
  const cell: Cell = { role: 'owner', factor: 'none' };
  let account: string;
  let member: Member;
  beforeAll(async () => {
    const other = await sys.merchant();
    account = other.id;
    const on = await sys.http.call('PATCH', '/api/v1/account', { headers: bearer(await sys.login(other)), body: { require_two_factor: true } });
    expect([on.status, on.body.require_two_factor]).toEqual([200, true]);
    member = await join(cell.role, cell.factor, account);
  });

  it('is refused 403 auth.err.two_factor_required on every route but enrolling, /me and leaving', async () => {
    const answers: { route: string; status: number; code: string | null }[] = [];
    const wanted: typeof answers = [];
    for (const [route, row] of Object.entries(ROWS)) {
      const outcome = WHILE_ENROLLING.has(route) ? expected(row, cell) : TWO_FACTOR_REQUIRED;
      const res = await row.call(row.freshMember && succeeds(outcome) ? await join(cell.role, cell.factor, account) : member);
      answers.push({ route, status: res.status, code: res.body?.error?.code ?? null });
      const [status, code] = outcome;
      wanted.push({ route, status, code });
    }
    expect(answers).toEqual(wanted);
    await revokeExtraKeys();
  });
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
