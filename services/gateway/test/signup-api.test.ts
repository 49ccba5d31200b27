import { randomBytes } from 'node:crypto';
import { expectError } from '../../../tests/support/http';
import { bearer, startGateways, type Gateways } from './gateways';

jest.setTimeout(30_000);

let g: Gateways;
beforeAll(async () => {
  g = await startGateways(1, { RATE_LIMIT_ACCOUNT_MAIL_PER_IP_PER_HOUR: '5', RATE_LIMIT_ACCOUNT_MAIL_PER_EMAIL_PER_HOUR: '3' });
});
afterAll(() => g?.stop());

/** Every test speaks from an address of its own, so the per-address budgets of one test never reach another. */
let lastOctet = 0;
const newAddress = (): string => `203.0.113.${(lastOctet += 1)}`;
let ip = newAddress();
beforeEach(() => {
  ip = newAddress();
});

const call = (method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) =>
  (g.clients[0] as Gateways['clients'][number])(method, path, { ...init, headers: { 'X-Forwarded-For': ip, ...init.headers } });

const newEmail = (): string => `u-${randomBytes(6).toString('hex')}@example.com`;
const PASSWORD = 'a long enough passphrase';

interface QueuedMail {
  template: string;
  language: string;
  params: Record<string, string>;
}

/** The mail queued for `to`, oldest first (the worker that sends them is another package's; the queue is the contract). */
const mailTo = async (to: string): Promise<QueuedMail[]> =>
  g.db.query<QueuedMail>('SELECT template, language, params FROM mail_queue WHERE recipient = $1 ORDER BY created_at, id', [to]);

/** The token of a mailed link. */
const tokenOf = (mail: QueuedMail | undefined): string => {
  const link = mail?.params.link;
  if (!link) throw new Error('no link in the mail');
  const token = new URL(link).searchParams.get('token');
  if (!token) throw new Error(`no token in ${link}`);
  return token;
};

const login = (email: string, password: string) => call('POST', '/api/v1/auth/login', { body: { email, password } });

async function signUp(email = newEmail(), body: Record<string, unknown> = {}) {
  const res = await call('POST', '/api/v1/auth/signup', { body: { email, password: PASSWORD, account_name: 'Coffee Corner', ...body } });
  expect(res.status).toBe(202);
  expect(res.body).toEqual({});
  return email;
}

async function signedIn(email: string, password = PASSWORD) {
  const res = await login(email, password);
  expect(res.status).toBe(200);
  return bearer(res.body.session_token as string);
}

describe('POST /api/v1/auth/signup', () => {
  it('opens an unconfirmed user with an account they own, and mails the confirmation link in their language', async () => {
    const email = await signUp(newEmail(), { language: 'en' });
    const [mail, ...more] = await mailTo(email);
    expect(more).toEqual([]);
    expect(mail).toMatchObject({ template: 'signup_confirm', language: 'en' });
    expect(mail?.params.link).toMatch(/^http:\/\/localhost:8080\/dashboard\/confirm-email\?token=[A-Za-z0-9_-]{43}$/);
    const me = await call('GET', '/api/v1/me', { headers: await signedIn(email) });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email, email_confirmed: false, account: { role: 'owner' } });
    expect(me.body.memberships).toEqual([{ merchant_id: me.body.merchant_id, name: 'Coffee Corner', role: 'owner' }]);
  });

  it('answers a known email alike, changes nothing and mails that an account exists', async () => {
    const email = await signUp();
    await signUp(email.toUpperCase(), { password: 'another long passphrase', account_name: 'Someone else' });
    // The mail goes to the user's address as it was first given, in their language.
    expect((await mailTo(email)).map((m) => m.template)).toEqual(['signup_confirm', 'signup_exists']);
    expect(await mailTo(email.toUpperCase())).toEqual([]);
    // The first password still signs in, the second does not; still one account.
    const me = await call('GET', '/api/v1/me', { headers: await signedIn(email) });
    expect(me.body.memberships).toHaveLength(1);
    expectError(await login(email, 'another long passphrase'), 401, 'common.err.unauthorized');
  });

  it.each([
    ['a short password', { password: 'short pass' }, 'password'],
    ['a password past 128 characters', { password: 'x'.repeat(129) }, 'password'],
    ['a common password, whatever its case', { password: 'Q1W2E3R4T5Y6' }, 'password'],
    ['a malformed email', { email: 'not-an-email' }, 'email'],
    ['a blank account name', { account_name: '   ' }, 'account_name'],
  ])('refuses %s with 400 naming the field, and mails nothing', async (_what, over, field) => {
    const email = newEmail();
    const res = await call('POST', '/api/v1/auth/signup', { body: { email, password: PASSWORD, account_name: 'Shop', ...over } });
    expectError(res, 400, 'common.err.validation_failed');
    expect((res.body.error.details as { field: string }[]).map((d) => d.field)).toEqual([field]);
    expect(await mailTo(email)).toEqual([]);
  });

  it('limits sign-ups per email (429 with Retry-After), known or not', async () => {
    const email = newEmail();
    for (let i = 0; i < 3; i++) {
      ip = newAddress();
      await signUp(email);
    }
    ip = newAddress();
    const res = await call('POST', '/api/v1/auth/signup', { body: { email, password: PASSWORD, account_name: 'Shop' } });
    expectError(res, 429, 'common.err.rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('limits sign-ups per address (429 with Retry-After)', async () => {
    for (let i = 0; i < 5; i++) await signUp();
    const res = await call('POST', '/api/v1/auth/signup', { body: { email: newEmail(), password: PASSWORD, account_name: 'Shop' } });
    expectError(res, 429, 'common.err.rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('POST /api/v1/auth/confirm-email', () => {
  it('confirms the email once; the token is then spent', async () => {
    const email = await signUp();
    const token = tokenOf((await mailTo(email))[0]);
    const res = await call('POST', '/api/v1/auth/confirm-email', { body: { token } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await call('GET', '/api/v1/me', { headers: await signedIn(email) })).body.email_confirmed).toBe(true);
    expectError(await call('POST', '/api/v1/auth/confirm-email', { body: { token } }), 400, 'auth.err.invalid_token');
  });

  it('refuses an unknown token, an expired one, and a reset token', async () => {
    expectError(await call('POST', '/api/v1/auth/confirm-email', { body: { token: 'x'.repeat(43) } }), 400, 'auth.err.invalid_token');
    const email = await signUp();
    const token = tokenOf((await mailTo(email))[0]);
    await g.db.query(`UPDATE user_tokens SET expires_at = now() - interval '1 second' WHERE user_id = (SELECT id FROM users WHERE email = $1)`, [
      email,
    ]);
    expectError(await call('POST', '/api/v1/auth/confirm-email', { body: { token } }), 400, 'auth.err.invalid_token');
    expect(await call('POST', '/api/v1/auth/password-reset', { body: { email } })).toMatchObject({ status: 202 });
    const reset = tokenOf((await mailTo(email)).find((m) => m.template === 'password_reset'));
    expectError(await call('POST', '/api/v1/auth/confirm-email', { body: { token: reset } }), 400, 'auth.err.invalid_token');
  });

  it('keeps confirmation tokens for 24 hours', async () => {
    const email = await signUp();
    const [row] = await g.db.query<{ hours: number }>(
      `SELECT round(extract(epoch FROM expires_at - created_at) / 3600)::int AS hours FROM user_tokens
        WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [email],
    );
    expect(row?.hours).toBe(24);
  });
});

describe('POST /api/v1/auth/confirm-email/resend', () => {
  it('mails a new link while the email is unconfirmed, and nothing once it is', async () => {
    const email = await signUp();
    const auth = await signedIn(email);
    const res = await call('POST', '/api/v1/auth/confirm-email/resend', { headers: auth });
    expect(res.status).toBe(202);
    const mails = await mailTo(email);
    expect(mails.map((m) => m.template)).toEqual(['signup_confirm', 'signup_confirm']);
    expect(await call('POST', '/api/v1/auth/confirm-email', { body: { token: tokenOf(mails[1]) } })).toMatchObject({ status: 200 });
    expect((await call('POST', '/api/v1/auth/confirm-email/resend', { headers: auth })).status).toBe(202);
    expect(await mailTo(email)).toHaveLength(2);
  });

  it('needs a session and is limited per email', async () => {
    expectError(await call('POST', '/api/v1/auth/confirm-email/resend'), 401, 'common.err.unauthorized');
    const email = await signUp();
    const auth = await signedIn(email);
    for (let i = 0; i < 3; i++) {
      ip = newAddress();
      expect((await call('POST', '/api/v1/auth/confirm-email/resend', { headers: auth })).status).toBe(202);
    }
    ip = newAddress();
    expectError(await call('POST', '/api/v1/auth/confirm-email/resend', { headers: auth }), 429, 'common.err.rate_limited');
  });
});

describe('POST /api/v1/auth/password-reset', () => {
  it('answers an unknown email as a known one, and mails only the known one', async () => {
    const email = await signUp();
    const unknown = newEmail();
    const known = await call('POST', '/api/v1/auth/password-reset', { body: { email } });
    const other = await call('POST', '/api/v1/auth/password-reset', { body: { email: unknown } });
    expect([known.status, known.body]).toEqual([202, {}]);
    expect([other.status, other.body]).toEqual([202, {}]);
    expect((await mailTo(email)).map((m) => m.template)).toEqual(['signup_confirm', 'password_reset']);
    expect(await mailTo(unknown)).toEqual([]);
  });

  it('sets the new password through the link, once, ends every session and mails that it changed', async () => {
    const email = await signUp();
    const before = await signedIn(email);
    await call('POST', '/api/v1/auth/password-reset', { body: { email } });
    const token = tokenOf((await mailTo(email)).find((m) => m.template === 'password_reset'));
    const res = await call('POST', '/api/v1/auth/password-reset/confirm', { body: { token, new_password: 'the brand new passphrase' } });
    expect(res.status).toBe(204);
    expectError(await call('GET', '/api/v1/me', { headers: before }), 401, 'common.err.unauthorized');
    expectError(await login(email, PASSWORD), 401, 'common.err.unauthorized');
    await signedIn(email, 'the brand new passphrase');
    expect((await mailTo(email)).map((m) => m.template)).toEqual(['signup_confirm', 'password_reset', 'password_changed']);
    expectError(
      await call('POST', '/api/v1/auth/password-reset/confirm', { body: { token, new_password: 'yet another passphrase' } }),
      400,
      'auth.err.invalid_token',
    );
  });

  it('refuses a common password without spending the token, and an expired token', async () => {
    const email = await signUp();
    await call('POST', '/api/v1/auth/password-reset', { body: { email } });
    const token = tokenOf((await mailTo(email)).find((m) => m.template === 'password_reset'));
    const weak = await call('POST', '/api/v1/auth/password-reset/confirm', { body: { token, new_password: '1qaz2wsx3edc' } });
    expectError(weak, 400, 'common.err.validation_failed');
    expect(weak.body.error.details).toEqual([expect.objectContaining({ field: 'new_password' })]);
    await g.db.query(
      `UPDATE user_tokens SET expires_at = now() - interval '1 second' WHERE purpose = 'password_reset' AND user_id = (SELECT id FROM users WHERE email = $1)`,
      [email],
    );
    expectError(
      await call('POST', '/api/v1/auth/password-reset/confirm', { body: { token, new_password: 'the brand new passphrase' } }),
      400,
      'auth.err.invalid_token',
    );
  });

  it('keeps reset tokens for one hour', async () => {
    const email = await signUp();
    await call('POST', '/api/v1/auth/password-reset', { body: { email } });
    const [row] = await g.db.query<{ minutes: number }>(
      `SELECT round(extract(epoch FROM expires_at - created_at) / 60)::int AS minutes FROM user_tokens
        WHERE purpose = 'password_reset' AND user_id = (SELECT id FROM users WHERE email = $1)`,
      [email],
    );
    expect(row?.minutes).toBe(60);
  });

  it('limits resets per email, known or not (429 with Retry-After)', async () => {
    const email = newEmail();
    for (let i = 0; i < 3; i++) {
      ip = newAddress();
      expect((await call('POST', '/api/v1/auth/password-reset', { body: { email } })).status).toBe(202);
    }
    ip = newAddress();
    const res = await call('POST', '/api/v1/auth/password-reset', { body: { email } });
    expectError(res, 429, 'common.err.rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('stores only digests of tokens', async () => {
    const email = await signUp();
    const token = tokenOf((await mailTo(email))[0]);
    const rows = await g.db.query<{ hex: string }>(`SELECT encode(token_sha256, 'hex') AS hex FROM user_tokens`);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.hex.includes(Buffer.from(token).toString('hex')))).toBe(false);
  });
});

describe('POST /api/v1/auth/switch', () => {
  it("moves the session to another of the user's accounts, and refuses any other account", async () => {
    const first = await signUp();
    const second = await signUp();
    const auth = await signedIn(first);
    const me = (await call('GET', '/api/v1/me', { headers: auth })).body as { user_id: string; merchant_id: string };
    const other = (await call('GET', '/api/v1/me', { headers: await signedIn(second) })).body as { merchant_id: string };
    expectError(await call('POST', '/api/v1/auth/switch', { headers: auth, body: { merchant_id: other.merchant_id } }), 403, 'common.err.forbidden');
    await g.db.query(`INSERT INTO memberships (user_id, merchant_id, role) VALUES ($1, $2, 'viewer')`, [me.user_id, other.merchant_id]);
    const switched = await call('POST', '/api/v1/auth/switch', { headers: auth, body: { merchant_id: other.merchant_id } });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ merchant_id: other.merchant_id, account: { merchant_id: other.merchant_id, role: 'viewer' } });
    expect((await call('GET', '/api/v1/me', { headers: auth })).body).toMatchObject({ email: first, merchant_id: other.merchant_id });
    expect((await call('GET', '/api/v1/me', { headers: auth })).body.memberships).toHaveLength(2);
    // Removed from that account, the session is over at once.
    await g.db.query('DELETE FROM memberships WHERE user_id = $1 AND merchant_id = $2', [me.user_id, other.merchant_id]);
    expectError(await call('GET', '/api/v1/me', { headers: auth }), 401, 'common.err.unauthorized');
  });
});

describe('SIGNUP_ENABLED=false', () => {
  let off: Gateways;
  beforeAll(async () => {
    off = await startGateways(1, { SIGNUP_ENABLED: 'false' });
  });
  afterAll(() => off?.stop());

  it('refuses sign-up with 403 and mails nothing', async () => {
    const email = newEmail();
    const res = await (off.clients[0] as Gateways['clients'][number])('POST', '/api/v1/auth/signup', {
      body: { email, password: PASSWORD, account_name: 'Shop' },
    });
    expectError(res, 403, 'common.err.forbidden');
    expect(await off.db.query('SELECT 1 FROM mail_queue')).toEqual([]);
  });
});
