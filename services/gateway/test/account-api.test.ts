import { randomUUID } from 'node:crypto';
import { ACTIVE_API_KEYS_MAX, type ApiKeyView } from '@pl/contracts';
import { expectError } from '../../../tests/support/http';
import { bearer, PUBLIC_ORIGIN, startGateways, type Gateways } from './gateways';

jest.setTimeout(30_000);

let g: Gateways;
beforeAll(async () => {
  g = await startGateways(1);
});
afterAll(() => g?.stop());

const call = (method: string, path: string, init?: { headers?: Record<string, string>; body?: unknown }) =>
  (g.clients[0] as Gateways['clients'][number])(method, path, init);

/** A merchant with a session (Bearer headers). */
async function signedIn(emailConfirmed = true) {
  const m = await g.merchant(emailConfirmed);
  const token = await g.signIn(m);
  return { ...m, token, auth: bearer(token) };
}

const links = (keys: Record<string, string>) => call('GET', '/merchant/v1/payment-links', { headers: keys });
/** The merchant's key listed under `publicKey` (its first live key, by default: the test key is listed beside it). */
async function keyOf(m: { auth: Record<string, string>; keys: Record<string, string> }, publicKey = m.keys['X-API-Key']) {
  const list = (await call('GET', '/api/v1/api-keys', { headers: m.auth })).body.api_keys as ApiKeyView[];
  const key = list.find((k) => k.public_key === publicKey);
  if (!key) throw new Error(`no key ${publicKey}`);
  return key;
}
const keysOf = (pair: { public_key: string; api_secret: string }) => ({ 'X-API-Key': pair.public_key, 'X-API-Secret': pair.api_secret });
const auditTypes = async (auth: Record<string, string>) =>
  ((await call('GET', '/api/v1/audit-events', { headers: auth })).body.audit_events as { type: string }[]).map((e) => e.type);

describe('GET /api/v1/me', () => {
  it('answers the merchant with +03:00 dates', async () => {
    const m = await signedIn(false);
    const res = await call('GET', '/api/v1/me', { headers: m.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user_id: expect.any(String),
      merchant_id: m.id,
      email: m.email,
      email_confirmed: false,
      // The sign-in helper turned TOTP on (tests/support/second-factor.ts).
      two_factor: { totp: true, passkeys: 0, recovery_codes_left: 10 },
      account: { merchant_id: m.id, role: 'owner', require_two_factor: false },
      memberships: [{ merchant_id: m.id, name: m.email, role: 'owner' }],
      created_at: expect.stringMatching(/\+03:00$/),
    });
  });

  it('answers 401 without a session, and for API keys', async () => {
    const m = await g.merchant();
    expectError(await call('GET', '/api/v1/me'), 401, 'common.err.unauthorized');
    expectError(await call('GET', '/api/v1/me', { headers: m.keys }), 401, 'common.err.unauthorized');
  });

  it('answers 405 for another method', async () => {
    const m = await signedIn();
    const res = await call('DELETE', '/api/v1/me', { headers: m.auth });
    expectError(res, 405, 'common.err.method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('API keys', () => {
  it('lists every key newest first, without any secret', async () => {
    const m = await signedIn();
    const created = await call('POST', '/api/v1/api-keys', { headers: m.auth, body: { label: 'shop server' } });
    const res = await call('GET', '/api/v1/api-keys', { headers: m.auth });
    expect(res.status).toBe(200);
    // The account's first two keys are made together: the same created_at, then by public key (pk_test_ first).
    expect(res.body.api_keys.map((k: { public_key: string }) => k.public_key)).toEqual([
      created.body.public_key,
      m.testKeys['X-API-Key'],
      m.keys['X-API-Key'],
    ]);
    expect(res.body.api_keys.map((k: { mode: string }) => k.mode)).toEqual(['live', 'test', 'live']);
    expect(res.body.api_keys[0]).toEqual({
      id: created.body.id,
      label: 'shop server',
      public_key: created.body.public_key,
      mode: 'live',
      created_at: expect.stringMatching(/\+03:00$/),
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
    });
    expect(res.text).not.toContain('sk_live_');
    expect(res.text).not.toContain('sk_test_');
  });

  it('creates a key: 201 with its secret once, and the pair works at once', async () => {
    const m = await signedIn();
    const res = await call('POST', '/api/v1/api-keys', { headers: m.auth, body: {} });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      label: null,
      public_key: expect.stringMatching(/^pk_live_/),
      mode: 'live',
      api_secret: expect.stringMatching(/^sk_live_/),
    });
    expect((await links(keysOf(res.body))).status).toBe(200);
    expect(await auditTypes(m.auth)).toContain('api_key.created');
  });

  it('creates a test key with mode test: pk_test_/sk_test_, listed with its mode, and the pair acts in test mode', async () => {
    const m = await signedIn();
    const res = await call('POST', '/api/v1/api-keys', { headers: m.auth, body: { label: 'sandbox', mode: 'test' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      label: 'sandbox',
      public_key: expect.stringMatching(/^pk_test_/),
      mode: 'test',
      api_secret: expect.stringMatching(/^sk_test_/),
    });
    expect(await keyOf(m, res.body.public_key)).toMatchObject({ id: res.body.id, mode: 'test' });
    expect((await links(keysOf(res.body))).status).toBe(200);
    // Its mode is its own, whatever mode the dashboard acts in: a live key made from the test switch is live.
    const live = await call('POST', '/api/v1/api-keys', { headers: { ...m.auth, 'Pl-Mode': 'test' }, body: { mode: 'live' } });
    expect(live.body).toMatchObject({ public_key: expect.stringMatching(/^pk_live_/), mode: 'live' });
  });

  it('refuses an unknown mode with 400', async () => {
    const m = await signedIn();
    const res = await call('POST', '/api/v1/api-keys', { headers: m.auth, body: { mode: 'TEST' } });
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'mode' })]);
  });

  it('creates a key from a request without a body', async () => {
    const m = await signedIn();
    expect((await call('POST', '/api/v1/api-keys', { headers: m.auth })).status).toBe(201);
  });

  it.each([{ label: 'x'.repeat(101) }, { label: 5 }, { label: 'ok', scope: 'all' }])('refuses the body %j with 400', async (body) => {
    const m = await signedIn();
    expectError(await call('POST', '/api/v1/api-keys', { headers: m.auth, body }), 400, 'common.err.validation_failed');
  });

  it('needs a confirmed email to create', async () => {
    const m = await signedIn(false);
    expectError(await call('POST', '/api/v1/api-keys', { headers: m.auth, body: {} }), 403, 'account.err.email_not_confirmed');
  });

  it(`refuses a key beyond ${ACTIVE_API_KEYS_MAX} active ones of both modes together with 422, and counts revoked ones out`, async () => {
    const m = await signedIn();
    const made = [];
    // The account starts with a live and a test key; the rest alternate modes, and the limit counts them all.
    for (let i = 2; i < ACTIVE_API_KEYS_MAX; i++) {
      made.push(await call('POST', '/api/v1/api-keys', { headers: m.auth, body: { mode: i % 2 === 0 ? 'test' : 'live' } }));
    }
    expect(made.map((r) => r.status)).toEqual(Array(ACTIVE_API_KEYS_MAX - 2).fill(201));
    expectError(await call('POST', '/api/v1/api-keys', { headers: m.auth, body: { mode: 'test' } }), 422, 'api_key.err.limit_reached');
    expectError(await call('POST', '/api/v1/api-keys', { headers: m.auth, body: {} }), 422, 'api_key.err.limit_reached');
    expect((await call('POST', `/api/v1/api-keys/${made[0]?.body.id}/revoke`, { headers: m.auth, body: {} })).status).toBe(200);
    expect((await call('POST', '/api/v1/api-keys', { headers: m.auth, body: {} })).status).toBe(201);
  });

  it('records last_used_at when a key is used', async () => {
    const m = await signedIn();
    expect((await links(m.keys)).status).toBe(200);
    // The write happens beside the request, not in it: wait for it to land.
    let used: string | null = null;
    for (let i = 0; i < 100 && used === null; i++) {
      used = (await keyOf(m)).last_used_at;
      if (used === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(used).toMatch(/\+03:00$/);
  });

  describe('reissue', () => {
    it('answers 201 with the new key and secret; the old one stops at once with grace 0', async () => {
      const m = await signedIn();
      const old = await keyOf(m);
      expect((await links(m.keys)).status).toBe(200);
      const res = await call('POST', `/api/v1/api-keys/${old.id}/reissue`, { headers: m.auth, body: {} });
      expect(res.status).toBe(201);
      expect(res.body.id).not.toBe(old.id);
      expect(res.body.api_secret).toMatch(/^sk_live_/);
      expectError(await links(m.keys), 401, 'common.err.unauthorized');
      expect((await links(keysOf(res.body))).status).toBe(200);
      expect(await keyOf(m)).toMatchObject({ id: old.id, mode: 'live', expires_at: expect.stringMatching(/\+03:00$/), revoked_at: null });
      expect(await auditTypes(m.auth)).toContain('api_key.reissued');
    });

    it('keeps the mode: a test key is reissued as a test key, a live one as a live one', async () => {
      const m = await signedIn();
      const old = await keyOf(m, m.testKeys['X-API-Key']);
      const res = await call('POST', `/api/v1/api-keys/${old.id}/reissue`, { headers: m.auth, body: {} });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        public_key: expect.stringMatching(/^pk_test_/),
        mode: 'test',
        api_secret: expect.stringMatching(/^sk_test_/),
      });
      expectError(await links(m.testKeys), 401, 'common.err.unauthorized');
      expect((await links(keysOf(res.body))).status).toBe(200);
      const live = await call('POST', `/api/v1/api-keys/${(await keyOf(m)).id}/reissue`, { headers: { ...m.auth, 'Pl-Mode': 'test' }, body: {} });
      expect(live.body).toMatchObject({ public_key: expect.stringMatching(/^pk_live_/), mode: 'live' });
    });

    it('keeps the old key working during the grace period, expiring it grace_minutes from now', async () => {
      const m = await signedIn();
      const old = await keyOf(m);
      const before = Date.now();
      const res = await call('POST', `/api/v1/api-keys/${old.id}/reissue`, { headers: m.auth, body: { grace_minutes: 30 } });
      expect(res.status).toBe(201);
      expect((await links(m.keys)).status).toBe(200);
      const expires = new Date((await keyOf(m)).expires_at ?? '').getTime();
      expect(expires).toBeGreaterThanOrEqual(before + 30 * 60_000 - 2000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 30 * 60_000 + 2000);
    });

    it.each([{ grace_minutes: -1 }, { grace_minutes: 10_081 }, { grace_minutes: 1.5 }, { grace_minutes: '5' }, { other: 1 }])(
      'refuses %j with 400',
      async (body) => {
        const m = await signedIn();
        const old = await keyOf(m);
        expectError(await call('POST', `/api/v1/api-keys/${old.id}/reissue`, { headers: m.auth, body }), 400, 'common.err.validation_failed');
      },
    );

    it('answers 409 for a revoked or an expired key', async () => {
      const m = await signedIn();
      const old = await keyOf(m);
      await call('POST', `/api/v1/api-keys/${old.id}/reissue`, { headers: m.auth, body: {} });
      expectError(await call('POST', `/api/v1/api-keys/${old.id}/reissue`, { headers: m.auth, body: {} }), 409, 'api_key.err.inactive');
      expectError(await call('POST', `/api/v1/api-keys/${old.id}/revoke`, { headers: m.auth, body: {} }), 409, 'api_key.err.inactive');
      const fresh = await call('POST', '/api/v1/api-keys', { headers: m.auth, body: {} });
      await call('POST', `/api/v1/api-keys/${fresh.body.id}/revoke`, { headers: m.auth, body: {} });
      expectError(await call('POST', `/api/v1/api-keys/${fresh.body.id}/reissue`, { headers: m.auth, body: {} }), 409, 'api_key.err.inactive');
    });

    it('needs a confirmed email', async () => {
      const m = await signedIn(false);
      const old = await keyOf(m);
      expectError(await call('POST', `/api/v1/api-keys/${old.id}/reissue`, { headers: m.auth, body: {} }), 403, 'account.err.email_not_confirmed');
    });
  });

  describe('revoke', () => {
    it('answers 200 with revoked_at; the pair is refused at once, even right after it was remembered', async () => {
      const m = await signedIn(false);
      const key = await keyOf(m);
      expect((await links(m.keys)).status).toBe(200);
      const res = await call('POST', `/api/v1/api-keys/${key.id}/revoke`, { headers: m.auth, body: {} });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...key, revoked_at: expect.stringMatching(/\+03:00$/), last_used_at: expect.anything() });
      expect(res.text).not.toContain('sk_live_');
      expectError(await links(m.keys), 401, 'common.err.unauthorized');
      expect(await auditTypes(m.auth)).toContain('api_key.revoked');
    });

    it('refuses a body with fields', async () => {
      const m = await signedIn();
      const key = await keyOf(m);
      expectError(
        await call('POST', `/api/v1/api-keys/${key.id}/revoke`, { headers: m.auth, body: { now: true } }),
        400,
        'common.err.validation_failed',
      );
    });
  });

  it.each(['reissue', 'revoke'])('%s: 404 for an unknown or malformed id, 403 for another merchant key', async (action) => {
    const [a, b] = [await signedIn(), await signedIn()];
    const bKey = await keyOf(b);
    expectError(await call('POST', `/api/v1/api-keys/${randomUUID()}/${action}`, { headers: a.auth, body: {} }), 404, 'common.err.not_found');
    expectError(await call('POST', `/api/v1/api-keys/not-a-uuid/${action}`, { headers: a.auth, body: {} }), 404, 'common.err.not_found');
    expectError(await call('POST', `/api/v1/api-keys/${bKey.id}/${action}`, { headers: a.auth, body: {} }), 403, 'common.err.forbidden');
    expect((await links(b.keys)).status).toBe(200);
  });

  it('answers 401 without a session, with an API key pair, and 405 for other methods', async () => {
    const m = await g.merchant();
    expectError(await call('GET', '/api/v1/api-keys'), 401, 'common.err.unauthorized');
    expectError(await call('POST', '/api/v1/api-keys', { headers: m.keys, body: {} }), 401, 'common.err.unauthorized');
    const s = await signedIn();
    expectError(await call('DELETE', '/api/v1/api-keys', { headers: s.auth }), 405, 'common.err.method_not_allowed');
    expectError(await call('GET', `/api/v1/api-keys/${randomUUID()}/revoke`, { headers: s.auth }), 405, 'common.err.method_not_allowed');
  });

  it('never replays a secret: the same Idempotency-Key again is 409, a fresh one creates', async () => {
    const m = await signedIn();
    const headers = { ...m.auth, 'Idempotency-Key': `k-${randomUUID()}` };
    const first = await call('POST', '/api/v1/api-keys', { headers, body: { label: 'a' } });
    expect(first.status).toBe(201);
    const again = await call('POST', '/api/v1/api-keys', { headers, body: { label: 'a' } });
    expectError(again, 409, 'common.err.idempotency_conflict');
    expect(again.text).not.toContain(first.body.api_secret);
    expect(again.text).not.toContain(first.body.public_key);
    const stored = (await g.idempotencyRecords()).join('\n');
    expect(stored).toContain('"status":201');
    expect(stored).not.toContain(first.body.api_secret);
    const fresh = await call('POST', '/api/v1/api-keys', { headers: { ...m.auth, 'Idempotency-Key': `k-${randomUUID()}` }, body: { label: 'a' } });
    expect(fresh.status).toBe(201);
    expect((await call('GET', '/api/v1/api-keys', { headers: m.auth })).body.api_keys).toHaveLength(4);
  });

  it('never replays a reissued secret either', async () => {
    const m = await signedIn();
    const old = await keyOf(m);
    const headers = { ...m.auth, 'Idempotency-Key': `k-${randomUUID()}` };
    expect((await call('POST', `/api/v1/api-keys/${old.id}/reissue`, { headers, body: { grace_minutes: 5 } })).status).toBe(201);
    expectError(
      await call('POST', `/api/v1/api-keys/${old.id}/reissue`, { headers, body: { grace_minutes: 5 } }),
      409,
      'common.err.idempotency_conflict',
    );
  });
});

describe('POST /api/v1/auth/password', () => {
  it('answers 204, ends every other session at once and keeps the caller', async () => {
    const m = await signedIn(false);
    const other = await g.signIn(m);
    const res = await call('POST', '/api/v1/auth/password', {
      headers: m.auth,
      body: { current_password: m.password, new_password: 'a new passphrase' },
    });
    expect(res.status).toBe(204);
    expectError(await call('GET', '/api/v1/me', { headers: bearer(other) }), 401, 'common.err.unauthorized');
    expect((await call('GET', '/api/v1/me', { headers: m.auth })).status).toBe(200);
    expect((await call('POST', '/api/v1/auth/login', { body: { email: m.email, password: m.password } })).status).toBe(401);
    expect((await call('POST', '/api/v1/auth/login', { body: { email: m.email, password: 'a new passphrase' } })).status).toBe(200);
    expect(await auditTypes(m.auth)).toContain('account.password_changed');
  });

  it('answers 403 for a wrong current password and changes nothing', async () => {
    const m = await signedIn();
    const other = await g.signIn(m);
    const res = await call('POST', '/api/v1/auth/password', {
      headers: m.auth,
      body: { current_password: 'wrong', new_password: 'a new passphrase' },
    });
    expectError(res, 403, 'common.err.forbidden');
    expect((await call('GET', '/api/v1/me', { headers: bearer(other) })).status).toBe(200);
    expect((await call('POST', '/api/v1/auth/login', { body: { email: m.email, password: m.password } })).status).toBe(200);
    expect(await auditTypes(m.auth)).not.toContain('account.password_changed');
  });

  it.each([
    { current_password: 'x' },
    { current_password: 'x', new_password: 'short' },
    { current_password: 'x', new_password: 'long enough', extra: 1 },
  ])('refuses %j with 400', async (body) => {
    const m = await signedIn();
    expectError(await call('POST', '/api/v1/auth/password', { headers: m.auth, body }), 400, 'common.err.validation_failed');
  });

  it('answers 401 without a session and 405 for GET', async () => {
    expectError(
      await call('POST', '/api/v1/auth/password', { body: { current_password: 'x', new_password: 'long enough' } }),
      401,
      'common.err.unauthorized',
    );
    const m = await signedIn();
    expectError(await call('GET', '/api/v1/auth/password', { headers: m.auth }), 405, 'common.err.method_not_allowed');
  });
});

describe('audit events', () => {
  it('records a sign-in from a new address once, with the address the gateway sees', async () => {
    const m = await g.merchant();
    const token = await g.signIn(m, 0, '203.0.113.5');
    await g.signIn(m, 0, '203.0.113.5');
    await g.signIn(m, 0, '203.0.113.6');
    const res = await call('GET', '/api/v1/audit-events', { headers: bearer(token) });
    expect(res.status).toBe(200);
    // The sign-in helper turned TOTP on after the first sign-in (tests/support/second-factor.ts).
    expect(res.body.audit_events.map((e: { type: string; ip: string; subject: string }) => [e.type, e.ip, e.subject])).toEqual([
      ['account.sign_in_new_address', '203.0.113.6', '203.0.113.6'],
      ['two_factor.totp_enabled', '127.0.0.1', null],
      ['account.sign_in_new_address', '203.0.113.5', '203.0.113.5'],
    ]);
  });

  it('pages newest first with limit and cursor, ids and public keys only', async () => {
    const m = await signedIn();
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await call('POST', '/api/v1/api-keys', { headers: m.auth, body: {} })).body);
    const first = await call('GET', '/api/v1/audit-events?limit=2', { headers: m.auth });
    expect(first.status).toBe(200);
    expect(first.body.has_more).toBe(true);
    expect(first.body.audit_events.map((e: { subject: string }) => e.subject)).toEqual([made[2].public_key, made[1].public_key]);
    expect(first.body.audit_events[0]).toEqual({
      id: expect.any(String),
      type: 'api_key.created',
      at: expect.stringMatching(/\+03:00$/),
      // This request came without X-Forwarded-For: the address is the socket's.
      ip: '127.0.0.1',
      subject: made[2].public_key,
      // Who: the session's user, in the role they acted in, and their client (fetch's own User-Agent here).
      user_id: expect.any(String),
      user_email: m.email,
      role: 'owner',
      user_agent: expect.any(String),
    });
    // The sign-in helper turned TOTP on after the sign-in (tests/support/second-factor.ts).
    const second = await call('GET', `/api/v1/audit-events?limit=2&cursor=${first.body.next_cursor}`, { headers: m.auth });
    expect(second.body.audit_events.map((e: { type: string }) => e.type)).toEqual(['api_key.created', 'two_factor.totp_enabled']);
    expect(second.body.has_more).toBe(true);
    const third = await call('GET', `/api/v1/audit-events?limit=2&cursor=${second.body.next_cursor}`, { headers: m.auth });
    expect(third.body.audit_events.map((e: { type: string }) => e.type)).toEqual(['account.sign_in_new_address']);
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(first.text + second.text + third.text).not.toContain('sk_live_');
  });

  it("shows only the caller's events", async () => {
    const [a, b] = [await signedIn(), await signedIn()];
    await call('POST', '/api/v1/api-keys', { headers: b.auth, body: {} });
    expect(await auditTypes(a.auth)).toEqual(['two_factor.totp_enabled', 'account.sign_in_new_address']);
  });

  it.each(['limit=0', 'limit=101', 'limit=x', 'cursor=bm9wZQ', 'other=1'])('refuses ?%s with 400', async (query) => {
    const m = await signedIn();
    expectError(await call('GET', `/api/v1/audit-events?${query}`, { headers: m.auth }), 400, 'common.err.validation_failed');
  });

  it('answers 401 without a session', async () => {
    expectError(await call('GET', '/api/v1/audit-events'), 401, 'common.err.unauthorized');
  });

  it('is append-only in the database', async () => {
    await expect(g.db.query('UPDATE audit_events SET ip = NULL')).rejects.toThrow(/append-only/);
    await expect(g.db.query('DELETE FROM audit_events')).rejects.toThrow(/append-only/);
  });
});

describe('CSRF: cookie-authenticated changes', () => {
  const cookie = (token: string) => ({ Cookie: `sid=${token}` });

  it.each<[string, Record<string, string>]>([
    ['a foreign Origin', { Origin: 'https://evil.example' }],
    ['a foreign Referer and no Origin', { Referer: 'https://evil.example/page' }],
    ['neither Origin nor Referer', {}],
    ['Origin null', { Origin: 'null' }],
    ['a foreign Origin despite a same-origin Referer', { Origin: 'http://localhost:8081', Referer: `${PUBLIC_ORIGIN}/dashboard` }],
  ])('refuses a cookie POST with %s: 403, nothing created', async (_what, headers) => {
    const m = await signedIn();
    expectError(await call('POST', '/api/v1/api-keys', { headers: { ...cookie(m.token), ...headers }, body: {} }), 403, 'common.err.forbidden');
    expect((await call('GET', '/api/v1/api-keys', { headers: m.auth })).body.api_keys).toHaveLength(2);
  });

  it('accepts a cookie POST from the dashboard origin, by Origin or by Referer', async () => {
    const m = await signedIn();
    expect((await call('POST', '/api/v1/api-keys', { headers: { ...cookie(m.token), Origin: PUBLIC_ORIGIN }, body: {} })).status).toBe(201);
    expect(
      (await call('POST', '/api/v1/api-keys', { headers: { ...cookie(m.token), Referer: `${PUBLIC_ORIGIN}/dashboard/keys` }, body: {} })).status,
    ).toBe(201);
  });

  it('does not check Bearer requests, nor reads', async () => {
    const m = await signedIn();
    expect((await call('POST', '/api/v1/api-keys', { headers: { ...m.auth, Origin: 'https://evil.example' }, body: {} })).status).toBe(201);
    expect((await call('GET', '/api/v1/me', { headers: { ...cookie(m.token), Origin: 'https://evil.example' } })).status).toBe(200);
  });

  it('covers logout, link creation and the password change too', async () => {
    const m = await signedIn();
    const foreign = { ...cookie(m.token), Origin: 'https://evil.example' };
    expectError(await call('POST', '/api/v1/auth/logout', { headers: foreign }), 403, 'common.err.forbidden');
    expectError(await call('POST', '/api/v1/payment-links', { headers: foreign, body: { shop_id: 1, amount: '5' } }), 403, 'common.err.forbidden');
    const change = { current_password: m.password, new_password: 'a new passphrase' };
    expectError(await call('POST', '/api/v1/auth/password', { headers: foreign, body: change }), 403, 'common.err.forbidden');
    expect((await call('GET', '/api/v1/me', { headers: m.auth })).status).toBe(200);
  });

  it('answers 401 before 403 for a dead cookie from another site', async () => {
    const res = await call('POST', '/api/v1/api-keys', { headers: { Cookie: `sid=${'A'.repeat(43)}`, Origin: 'https://evil.example' }, body: {} });
    expectError(res, 401, 'common.err.unauthorized');
  });
});
