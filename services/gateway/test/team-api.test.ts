import { randomBytes, randomUUID } from 'node:crypto';
import type { AccountRole } from '@pl/contracts';
import { expectError } from '../../../tests/support/http';
import { bearer, startGateways, type Gateways } from './gateways';

jest.setTimeout(30_000);

/** Two replicas behind one database and Redis: a removal made on one must end sessions on the other. */
let g: Gateways;
beforeAll(async () => {
  g = await startGateways(2);
});
afterAll(() => g?.stop());

type Call = Gateways['clients'][number];
const call: Call = (method, path, init) => (g.clients[0] as Call)(method, path, init);
const callOn: Call = (method, path, init) => (g.clients[1] as Call)(method, path, init);

interface Member {
  userId: string;
  email: string;
  password: string;
  auth: Record<string, string>;
}

/** An account's owner, signed in: the account the operators' CLI makes. */
async function owner(): Promise<Member & { merchantId: string }> {
  const m = await g.merchant();
  const auth = bearer(await g.signIn(m));
  const me = await call('GET', '/api/v1/me', { headers: auth });
  return { userId: me.body.user_id as string, email: m.email, password: m.password, auth, merchantId: m.id };
}

/** A user of another account made a member of `merchantId` with `role`, signed in and switched to it (on `on`). */
async function member(merchantId: string, role: AccountRole, on = 0): Promise<Member> {
  const m = await g.merchant();
  const [user] = await g.db.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [m.email]);
  if (!user) throw new Error('no user');
  await g.db.query('INSERT INTO memberships (user_id, merchant_id, role) VALUES ($1, $2, $3)', [user.id, merchantId, role]);
  const auth = bearer(await g.signIn(m, on));
  const client = g.clients[on] as Call;
  expect((await client('POST', '/api/v1/auth/switch', { headers: auth, body: { merchant_id: merchantId } })).status).toBe(200);
  return { userId: user.id, email: m.email, password: m.password, auth };
}

const newEmail = (): string => `invitee-${randomBytes(6).toString('hex')}@example.com`;

/** The token of the last invitation mailed to `to`, and the mail's params. */
async function invitationMail(to: string): Promise<{ token: string; params: Record<string, string> }> {
  const rows = await g.db.query<{ params: Record<string, string> }>(
    `SELECT params FROM mail_queue WHERE recipient = $1 AND template = 'invitation' ORDER BY created_at DESC LIMIT 1`,
    [to],
  );
  const params = rows[0]?.params;
  if (!params?.link) throw new Error(`no invitation mailed to ${to}`);
  return { token: new URL(params.link).searchParams.get('token') ?? '', params };
}

describe('invitations', () => {
  it('invites by mail, lists the pending ones, and signs up a new email that accepts with a password', async () => {
    const o = await owner();
    const email = newEmail();
    const created = await call('POST', '/api/v1/invitations', { headers: o.auth, body: { email, role: 'finance' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email, role: 'finance', invited_by: o.userId });
    expect(created.body).not.toHaveProperty('token');
    const listed = await call('GET', '/api/v1/invitations', { headers: o.auth });
    expect(listed.body.invitations).toEqual([created.body]);
    const { token, params } = await invitationMail(email);
    expect(params).toMatchObject({ role: 'finance', inviter_email: o.email, account_name: o.email });
    expect(params.link).toMatch(/^http:\/\/localhost:8080\/dashboard\/invitation\?token=/);

    const accepted = await call('POST', '/api/v1/invitations/accept', { body: { token, password: 'the invitee passphrase' } });
    expect(accepted.status).toBe(200);
    const auth = bearer(accepted.body.session_token as string);
    const me = await call('GET', '/api/v1/me', { headers: auth });
    // The link proved the mailbox: the new user's email is confirmed.
    expect(me.body).toMatchObject({ email, email_confirmed: true, merchant_id: o.merchantId, account: { role: 'finance' } });
    const members = await call('GET', '/api/v1/members', { headers: o.auth });
    expect(members.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [o.email, 'owner'],
      [email, 'finance'],
    ]);
    expect((await call('GET', '/api/v1/invitations', { headers: o.auth })).body.invitations).toEqual([]);
    expectError(
      await call('POST', '/api/v1/invitations/accept', { body: { token, password: 'the invitee passphrase' } }),
      400,
      'auth.err.invalid_token',
    );
  });

  it("joins an existing user by their password or their session, and refuses another user's session", async () => {
    const o = await owner();
    const existing = await owner();
    await call('POST', '/api/v1/invitations', { headers: o.auth, body: { email: existing.email, role: 'developer' } });
    const { token } = await invitationMail(existing.email);
    expectError(await call('POST', '/api/v1/invitations/accept', { body: { token } }), 401, 'common.err.unauthorized');
    expectError(
      await call('POST', '/api/v1/invitations/accept', { body: { token, password: 'not the password at all' } }),
      401,
      'common.err.unauthorized',
    );
    const stranger = await owner();
    expectError(await call('POST', '/api/v1/invitations/accept', { headers: stranger.auth, body: { token } }), 403, 'common.err.forbidden');
    const accepted = await call('POST', '/api/v1/invitations/accept', { headers: existing.auth, body: { token } });
    expect(accepted.status).toBe(200);
    const me = await call('GET', '/api/v1/me', { headers: existing.auth });
    expect(me.body).toMatchObject({ merchant_id: o.merchantId, account: { role: 'developer' } });
    expect(me.body.memberships).toHaveLength(2);
  });

  it('withdraws a pending invitation: its link no longer works', async () => {
    const o = await owner();
    const email = newEmail();
    const created = await call('POST', '/api/v1/invitations', { headers: o.auth, body: { email, role: 'viewer' } });
    const { token } = await invitationMail(email);
    expect((await call('DELETE', `/api/v1/invitations/${created.body.id as string}`, { headers: o.auth })).status).toBe(204);
    expectError(await call('DELETE', `/api/v1/invitations/${created.body.id as string}`, { headers: o.auth }), 404, 'common.err.not_found');
    expectError(
      await call('POST', '/api/v1/invitations/accept', { body: { token, password: 'the invitee passphrase' } }),
      400,
      'auth.err.invalid_token',
    );
  });

  it('keeps invitations for 72 hours', async () => {
    const o = await owner();
    const created = await call('POST', '/api/v1/invitations', { headers: o.auth, body: { email: newEmail(), role: 'viewer' } });
    const [row] = await g.db.query<{ hours: number }>(
      'SELECT round(extract(epoch FROM expires_at - created_at) / 3600)::int AS hours FROM invitations WHERE id = $1',
      [created.body.id],
    );
    expect(row?.hours).toBe(72);
  });

  it("refuses an admin inviting an owner, and an invitation of another account's", async () => {
    const o = await owner();
    const admin = await member(o.merchantId, 'admin');
    expectError(
      await call('POST', '/api/v1/invitations', { headers: admin.auth, body: { email: newEmail(), role: 'owner' } }),
      403,
      'common.err.forbidden',
    );
    expect((await call('POST', '/api/v1/invitations', { headers: admin.auth, body: { email: newEmail(), role: 'admin' } })).status).toBe(201);
    const other = await owner();
    const theirs = await call('POST', '/api/v1/invitations', { headers: other.auth, body: { email: newEmail(), role: 'viewer' } });
    expectError(await call('DELETE', `/api/v1/invitations/${theirs.body.id as string}`, { headers: o.auth }), 403, 'common.err.forbidden');
  });
});

describe('members', () => {
  it('changes roles; an admin may not touch an owner nor make one', async () => {
    const o = await owner();
    const admin = await member(o.merchantId, 'admin');
    const dev = await member(o.merchantId, 'developer');
    const changed = await call('PATCH', `/api/v1/members/${dev.userId}`, { headers: admin.auth, body: { role: 'support' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ user_id: dev.userId, email: dev.email, role: 'support' });
    expect((await call('GET', '/api/v1/me', { headers: dev.auth })).body.account.role).toBe('support');
    expectError(await call('PATCH', `/api/v1/members/${dev.userId}`, { headers: admin.auth, body: { role: 'owner' } }), 403, 'common.err.forbidden');
    expectError(await call('PATCH', `/api/v1/members/${o.userId}`, { headers: admin.auth, body: { role: 'viewer' } }), 403, 'common.err.forbidden');
    expectError(await call('DELETE', `/api/v1/members/${o.userId}`, { headers: admin.auth }), 403, 'common.err.forbidden');
  });

  it('always keeps an owner (409 account.err.last_owner)', async () => {
    const o = await owner();
    expectError(await call('PATCH', `/api/v1/members/${o.userId}`, { headers: o.auth, body: { role: 'admin' } }), 409, 'account.err.last_owner');
    expectError(await call('DELETE', `/api/v1/members/${o.userId}`, { headers: o.auth }), 409, 'account.err.last_owner');
    const second = await member(o.merchantId, 'owner');
    expect((await call('PATCH', `/api/v1/members/${o.userId}`, { headers: second.auth, body: { role: 'admin' } })).status).toBe(200);
    expectError(await call('DELETE', `/api/v1/members/${second.userId}`, { headers: second.auth }), 409, 'account.err.last_owner');
  });

  it('ends a removed member’s sessions in the account at once, on every replica', async () => {
    const o = await owner();
    const finance = await member(o.merchantId, 'finance', 1);
    expect((await callOn('GET', '/api/v1/me', { headers: finance.auth })).status).toBe(200);
    expect((await call('DELETE', `/api/v1/members/${finance.userId}`, { headers: o.auth })).status).toBe(204);
    expectError(await callOn('GET', '/api/v1/me', { headers: finance.auth }), 401, 'common.err.unauthorized');
    expectError(await call('GET', '/api/v1/me', { headers: finance.auth }), 401, 'common.err.unauthorized');
    // Their own account is still theirs: signing in again opens it, and the session in the account they left is
    // not among their sessions any more.
    const again = bearer(await g.signIn(finance, 1));
    expect((await callOn('GET', '/api/v1/me', { headers: again })).body.memberships).toHaveLength(1);
    const sessions = (await callOn('GET', '/api/v1/me/sessions', { headers: again })).body.sessions as { current: boolean }[];
    expect(sessions.map((s) => s.current)).toEqual([true]);
  });

  it('refuses a removed member on the other replica within a second of the removal', async () => {
    const o = await owner();
    const dev = await member(o.merchantId, 'developer', 1);
    expect((await callOn('GET', '/api/v1/api-keys', { headers: dev.auth })).status).toBe(200);
    expect((await call('DELETE', `/api/v1/members/${dev.userId}`, { headers: o.auth })).status).toBe(204);
    const removedAt = performance.now();
    expectError(await callOn('GET', '/api/v1/api-keys', { headers: dev.auth }), 401, 'common.err.unauthorized');
    expect(performance.now() - removedAt).toBeLessThan(1000);
  });

  it('applies a role change on the other replica at once, both ways', async () => {
    const o = await owner();
    const dev = await member(o.merchantId, 'developer', 1);
    expect((await callOn('GET', '/api/v1/api-keys', { headers: dev.auth })).status).toBe(200);
    // Demoted on one replica: the next request on the other is refused in the new role.
    expect((await call('PATCH', `/api/v1/members/${dev.userId}`, { headers: o.auth, body: { role: 'viewer' } })).status).toBe(200);
    const demotedAt = performance.now();
    expectError(await callOn('GET', '/api/v1/api-keys', { headers: dev.auth }), 403, 'common.err.forbidden');
    expect(performance.now() - demotedAt).toBeLessThan(1000);
    expect((await callOn('GET', '/api/v1/me', { headers: dev.auth })).body.account.role).toBe('viewer');
    // Promoted back: allowed again at once, in the same session.
    expect((await callOn('PATCH', `/api/v1/members/${dev.userId}`, { headers: o.auth, body: { role: 'admin' } })).status).toBe(200);
    expect((await call('GET', '/api/v1/members', { headers: dev.auth })).status).toBe(200);
  });

  it('answers an unknown member 404 before any refusal by role, and a member of another account 404', async () => {
    const o = await owner();
    const viewer = await member(o.merchantId, 'viewer');
    expectError(await call('GET', '/api/v1/members', { headers: viewer.auth }), 403, 'common.err.forbidden');
    expectError(
      await call('PATCH', `/api/v1/members/${randomUUID()}`, { headers: viewer.auth, body: { role: 'viewer' } }),
      404,
      'common.err.not_found',
    );
    expectError(await call('PATCH', `/api/v1/members/${o.userId}`, { headers: viewer.auth, body: { role: 'viewer' } }), 403, 'common.err.forbidden');
    expectError(await call('DELETE', '/api/v1/members/not-a-uuid', { headers: o.auth }), 404, 'common.err.not_found');
    const stranger = await owner();
    expectError(await call('DELETE', `/api/v1/members/${stranger.userId}`, { headers: o.auth }), 404, 'common.err.not_found');
    expectError(await call('DELETE', `/api/v1/invitations/${randomUUID()}`, { headers: viewer.auth }), 404, 'common.err.not_found');
  });
});

describe('roles on the account routes', () => {
  it.each<[AccountRole, number]>([
    ['owner', 200],
    ['admin', 200],
    ['developer', 200],
    ['finance', 403],
    ['support', 403],
    ['viewer', 403],
  ])('API keys: %s lists them with %i', async (role, status) => {
    const o = await owner();
    const m = role === 'owner' ? o : await member(o.merchantId, role);
    const res = await call('GET', '/api/v1/api-keys', { headers: m.auth });
    expect(res.status).toBe(status);
    if (status === 403) expectError(res, 403, 'common.err.forbidden');
  });

  it.each<[AccountRole, number]>([
    ['owner', 200],
    ['admin', 200],
    ['developer', 403],
    ['finance', 403],
    ['support', 403],
    ['viewer', 403],
  ])('audit log: %s reads it with %i', async (role, status) => {
    const o = await owner();
    const m = role === 'owner' ? o : await member(o.merchantId, role);
    expect((await call('GET', '/api/v1/audit-events', { headers: m.auth })).status).toBe(status);
  });

  it('a viewer reads links but neither creates one nor touches a key; a missing key is still 404', async () => {
    const o = await owner();
    const viewer = await member(o.merchantId, 'viewer');
    expect((await call('GET', '/api/v1/payment-links', { headers: viewer.auth })).status).toBe(200);
    expectError(
      await call('POST', '/api/v1/payment-links', { headers: viewer.auth, body: { shop_id: 1, amount: '10.00', order_id: 'o-1' } }),
      403,
      'common.err.forbidden',
    );
    expectError(await call('POST', '/api/v1/api-keys', { headers: viewer.auth, body: {} }), 403, 'common.err.forbidden');
    expectError(await call('POST', `/api/v1/api-keys/${randomUUID()}/revoke`, { headers: viewer.auth, body: {} }), 404, 'common.err.not_found');
    const keys = (await call('GET', '/api/v1/api-keys', { headers: o.auth })).body.api_keys as { id: string }[];
    expectError(
      await call('POST', `/api/v1/api-keys/${String(keys[0]?.id)}/revoke`, { headers: viewer.auth, body: {} }),
      403,
      'common.err.forbidden',
    );
    // Nothing changed.
    expect((await call('GET', '/api/v1/api-keys', { headers: o.auth })).body.api_keys).toEqual(keys);
  });

  it('a developer neither reads the balance, statements nor refunds', async () => {
    const o = await owner();
    const dev = await member(o.merchantId, 'developer');
    expectError(await call('GET', '/api/v1/balance-transactions', { headers: dev.auth }), 403, 'common.err.forbidden');
    expectError(await call('GET', '/api/v1/refunds', { headers: dev.auth }), 403, 'common.err.forbidden');
  });
});

describe('who made each audited change', () => {
  interface Entry {
    type: string;
    ip: string | null;
    user_id: string | null;
    user_email: string | null;
    role: string | null;
    user_agent: string | null;
  }
  const entries = async (auth: Record<string, string>): Promise<Entry[]> => {
    const res = await call('GET', '/api/v1/audit-events?limit=100', { headers: auth });
    expect(res.status).toBe(200);
    return res.body.audit_events as Entry[];
  };
  const who = (e: Entry | undefined) => e && [e.type, e.user_email, e.role, e.ip, e.user_agent];

  it('names the user, the role they acted in, their address and user agent on every kind of write', async () => {
    const o = await owner();
    const admin = await member(o.merchantId, 'admin');
    const client = { 'X-Forwarded-For': '203.0.113.71', 'User-Agent': 'Admin browser/7' };
    // A change recorded inside its repository's transaction, the actor taken from the request.
    expect((await call('POST', '/api/v1/api-keys', { headers: { ...admin.auth, ...client }, body: {} })).status).toBe(201);
    const dev = await member(o.merchantId, 'developer');
    expect((await call('PATCH', `/api/v1/members/${dev.userId}`, { headers: { ...admin.auth, ...client }, body: { role: 'viewer' } })).status).toBe(
      200,
    );
    // An existing user of another account, signed in there, accepts an invitation: they joined in the invited role.
    const existing = await owner();
    await call('POST', '/api/v1/invitations', { headers: o.auth, body: { email: existing.email, role: 'finance' } });
    const { token } = await invitationMail(existing.email);
    const joinedFrom = { 'X-Forwarded-For': '203.0.113.72', 'User-Agent': 'Finance laptop' };
    expect((await call('POST', '/api/v1/invitations/accept', { headers: { ...existing.auth, ...joinedFrom }, body: { token } })).status).toBe(200);

    const log = await entries(o.auth);
    expect(who(log.find((e) => e.type === 'api_key.created'))).toEqual(['api_key.created', admin.email, 'admin', '203.0.113.71', 'Admin browser/7']);
    expect(who(log.find((e) => e.type === 'member.role_changed'))).toEqual([
      'member.role_changed',
      admin.email,
      'admin',
      '203.0.113.71',
      'Admin browser/7',
    ]);
    expect(who(log.find((e) => e.type === 'member.joined'))).toEqual(['member.joined', existing.email, 'finance', '203.0.113.72', 'Finance laptop']);
    expect(who(log.find((e) => e.type === 'member.invited'))?.slice(0, 3)).toEqual(['member.invited', o.email, 'owner']);
    // A sign-in writes before any session exists: the role is the user's in the account it opens.
    const signIn = log.find((e) => e.type === 'account.sign_in_new_address');
    expect(signIn).toMatchObject({ user_email: o.email, role: 'owner', ip: '198.51.100.10' });
  });

  it('keeps a user agent to 512 characters', async () => {
    const o = await owner();
    const long = `Agent/${'x'.repeat(2000)}`;
    expect((await call('POST', '/api/v1/api-keys', { headers: { ...o.auth, 'User-Agent': long }, body: {} })).status).toBe(201);
    const [created] = await entries(o.auth);
    expect(created?.user_agent).toBe(long.slice(0, 512));
  });
});
