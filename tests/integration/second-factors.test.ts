import { randomBytes, createHash, randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { expectError, type ApiResponse } from '../support/http';
import { aFreshTotpStep, enrollTotp, totpCode } from '../support/second-factor';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestSystem } from '../support/system';

/**
 * Second factors and step-up (docs/adr/0028), through real HTTP: TOTP and recovery codes, sign-in's second step and
 * its limits, the account's policy, and step-up for what moves money or credentials. Time is moved by rewriting
 * what the gateway stored (a session's last second factor, a challenge's lifetime), never by sleeping.
 */
let sys: TestSystem;
let redis: ReturnType<typeof createClient>;
beforeAll(async () => {
  // Every test here signs in several times from one address: the per-address sign-in budget is not what is tested.
  sys = await startSystem({ env: { RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '10000' } });
  redis = createClient({ url: sys.env.REDIS_URL });
  await redis.connect();
});
afterAll(async () => {
  await redis?.close();
  await sys?.stop();
});

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const prefix = () => sys.env.REDIS_KEY_PREFIX ?? '';

/** A session without a second factor (or the challenge of one with it). */
async function passwordLogin(m: { email: string; password: string }): Promise<ApiResponse> {
  const res = await sys.http.post('/api/v1/auth/login', { email: m.email, password: m.password });
  expect(res.status).toBe(200);
  return res;
}

/** Sets when the session last verified a second factor, as if that long ago. */
async function verifiedAgo(token: string, ms: number): Promise<void> {
  const key = `${prefix()}session:${digest(token)}`;
  const stored = JSON.parse((await redis.get(key)) ?? '{}') as Record<string, unknown>;
  await redis.set(key, JSON.stringify({ ...stored, second_factor_at: Date.now() - ms }), { KEEPTTL: true });
}

const TEN_MINUTES = 10 * 60 * 1000;

/** An owner with TOTP on, their session (stepped up by the confirmation) and what they enrolled. */
async function enrolledOwner(): Promise<{ m: TestMerchant; token: string; secret: string; recoveryCodes: string[] }> {
  const m = await sys.merchant();
  const token = (await passwordLogin(m)).body.session_token as string;
  const { secret, recoveryCodes } = await enrollTotp(sys.http.call, token, m.email);
  return { m, token, secret, recoveryCodes };
}

describe('TOTP', () => {
  it('enrolls with a secret, URI and QR, turns on with a code, mails the user, and shows in /me', async () => {
    const m = await sys.merchant();
    const token = (await passwordLogin(m)).body.session_token as string;
    const started = await sys.http.post('/api/v1/me/2fa/totp', {}, { headers: bearer(token) });
    expect(started.status).toBe(201);
    expect(started.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    expect(started.body.otpauth_uri).toContain(`secret=${started.body.secret}`);
    expect(started.body.qr_data_url).toMatch(/^data:image\/svg\+xml;base64,/);
    // Not on until confirmed: /me says so, and a wrong code leaves it off.
    expect((await sys.http.get('/api/v1/me', { headers: bearer(token) })).body.two_factor).toEqual({
      totp: false,
      passkeys: 0,
      recovery_codes_left: 0,
    });
    const wrong = String((Number(totpCode(started.body.secret)) + 1) % 1_000_000).padStart(6, '0');
    expectError(await sys.http.post('/api/v1/me/2fa/totp/confirm', { code: wrong }, { headers: bearer(token) }), 400, 'auth.err.invalid_code');
    const confirmed = await sys.http.post('/api/v1/me/2fa/totp/confirm', { code: totpCode(started.body.secret) }, { headers: bearer(token) });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.recovery_codes).toHaveLength(10);
    expect(new Set(confirmed.body.recovery_codes).size).toBe(10);
    expect((await sys.http.get('/api/v1/me', { headers: bearer(token) })).body.two_factor).toEqual({
      totp: true,
      passkeys: 0,
      recovery_codes_left: 10,
    });
    const mail = await sys.mail.waitForMailTo(m.email);
    expect(mail.subject).toBe('К аккаунту «Платёжных ссылок» добавлен второй фактор');
    expect(mail.text).not.toContain(started.body.secret);
    // Stored sealed, never in clear; the recovery codes as hashes only.
    const boxes = await sys.sql<{ secret_box: Buffer }>('SELECT secret_box FROM gateway.user_totp');
    for (const b of boxes) expect(b.secret_box.toString('latin1')).not.toContain(started.body.secret);
    expect(boxes.length).toBeGreaterThan(0);
    const hashes = await sys.sql<{ n: number }>(`SELECT count(*)::int AS n FROM gateway.user_recovery_codes WHERE code_sha256 = $1`, [
      Buffer.from(confirmed.body.recovery_codes[0] as string),
    ]);
    expect(hashes[0]?.n).toBe(0);
    // A second enrollment while on is refused.
    expectError(await sys.http.post('/api/v1/me/2fa/totp', {}, { headers: bearer(token) }), 409, 'two_factor.err.already_enabled');
  });

  it('takes a code of the step before and after now, refuses two steps away, and takes each code once', async () => {
    // Enrolled and tested within one step: "now" below is the step the confirmation used.
    await aFreshTotpStep();
    const { m, token, secret } = await enrolledOwner();
    const stepUp = (code: string) => sys.http.post('/api/v1/auth/step-up', { code }, { headers: bearer(token) });
    const now = Date.now();
    expectError(await stepUp(totpCode(secret, new Date(now - 60_000))), 400, 'auth.err.invalid_code');
    expectError(await stepUp(totpCode(secret, new Date(now + 60_000))), 400, 'auth.err.invalid_code');
    // The confirmation used this step: its code (and the previous step's) cannot be used again.
    expectError(await stepUp(totpCode(secret, new Date(now))), 400, 'auth.err.invalid_code');
    expectError(await stepUp(totpCode(secret, new Date(now - 30_000))), 400, 'auth.err.invalid_code');
    expect((await stepUp(totpCode(secret, new Date(now + 30_000)))).status).toBe(204);
    expectError(await stepUp(totpCode(secret, new Date(now + 30_000))), 400, 'auth.err.invalid_code');
    // A malformed code is the request's fault.
    expectError(await stepUp('12345'), 400, 'common.err.validation_failed');
    expect(m.email).toContain('@');
  });

  it('turns off with step-up only, mails the user, and takes the recovery codes with it', async () => {
    const { m, token } = await enrolledOwner();
    await sys.mail.waitForMailTo(m.email);
    await verifiedAgo(token, TEN_MINUTES);
    expectError(await sys.http.call('DELETE', '/api/v1/me/2fa/totp', { headers: bearer(token) }), 403, 'auth.err.step_up_required');
    await verifiedAgo(token, TEN_MINUTES - 1000);
    expect((await sys.http.call('DELETE', '/api/v1/me/2fa/totp', { headers: bearer(token) })).status).toBe(204);
    expect((await sys.http.get('/api/v1/me', { headers: bearer(token) })).body.two_factor).toEqual({
      totp: false,
      passkeys: 0,
      recovery_codes_left: 0,
    });
    const removed = await sys.mail.waitForMailTo(m.email, 2);
    expect(removed.subject).toBe('Из аккаунта «Платёжных ссылок» удалён второй фактор');
    // Signing in needs the password alone again.
    expect((await passwordLogin(m)).body.session_token).toEqual(expect.any(String));
    expectError(await sys.http.call('DELETE', '/api/v1/me/2fa/totp', { headers: bearer(token) }), 403, 'auth.err.two_factor_required');
  });
});

describe('sign-in with a second factor', () => {
  it('answers a challenge and no session, then signs in with a code', async () => {
    const { m, secret } = await enrolledOwner();
    const first = await passwordLogin(m);
    expect(first.body).toEqual({ two_factor_required: true, challenge: expect.any(String), methods: ['totp', 'recovery_code'] });
    expect(first.headers.get('set-cookie')).toBeNull();
    const done = await sys.http.post('/api/v1/auth/login/2fa', {
      challenge: first.body.challenge,
      code: totpCode(secret, new Date(Date.now() + 30_000)),
    });
    expect(done.status).toBe(200);
    expect(done.headers.get('set-cookie')).toContain('sid=');
    // The challenge is used once; the session it opened is stepped up.
    expectError(
      await sys.http.post('/api/v1/auth/login/2fa', { challenge: first.body.challenge, code: totpCode(secret) }),
      400,
      'auth.err.invalid_token',
    );
    expect((await sys.http.post('/api/v1/api-keys', {}, { headers: bearer(done.body.session_token) })).status).toBe(201);
  });

  it('refuses a TOTP code that signed in when it comes again within its window, as a watcher replaying it would', async () => {
    const { m, secret, recoveryCodes } = await enrolledOwner();
    // The step after now: the enrollment used this one, and the code stays valid for this step and the next.
    const code = totpCode(secret, new Date(Date.now() + 30_000));
    const first = await sys.http.post('/api/v1/auth/login/2fa', { challenge: (await passwordLogin(m)).body.challenge, code });
    expect(first.status).toBe(200);
    const { challenge } = (await passwordLogin(m)).body as { challenge: string };
    const replayed = await sys.http.post('/api/v1/auth/login/2fa', { challenge, code });
    expectError(replayed, 400, 'auth.err.invalid_code');
    expect(replayed.headers.get('set-cookie')).toBeNull();
    // Nor at step-up, with the session the code opened.
    expectError(await sys.http.post('/api/v1/auth/step-up', { code }, { headers: bearer(first.body.session_token) }), 400, 'auth.err.invalid_code');
    // The refusal is the code's, not the challenge's: the same challenge still takes a recovery code.
    expect((await sys.http.post('/api/v1/auth/login/2fa', { challenge, recovery_code: recoveryCodes[0] })).status).toBe(200);
  });

  it('takes each recovery code once, and a new set voids the old', async () => {
    const { m, token, recoveryCodes } = await enrolledOwner();
    const [code, other] = recoveryCodes;
    const withCode = async (recovery_code: string | undefined) =>
      sys.http.post('/api/v1/auth/login/2fa', { challenge: (await passwordLogin(m)).body.challenge, recovery_code });
    expect((await withCode(code?.toUpperCase())).status).toBe(200);
    expectError(await withCode(code), 400, 'auth.err.invalid_code');
    expect((await sys.http.get('/api/v1/me', { headers: bearer(token) })).body.two_factor.recovery_codes_left).toBe(9);
    const fresh = await sys.http.post('/api/v1/me/2fa/recovery-codes', {}, { headers: bearer(token) });
    expect(fresh.status).toBe(201);
    expect(fresh.body.recovery_codes).toHaveLength(10);
    expectError(await withCode(other), 400, 'auth.err.invalid_code');
    expect((await withCode(fresh.body.recovery_codes[0])).status).toBe(200);
  });

  it('refuses a challenge after its 5 tries and once it expired', async () => {
    const { m, secret } = await enrolledOwner();
    const { challenge } = (await passwordLogin(m)).body as { challenge: string };
    for (let i = 0; i < 5; i += 1) {
      expectError(await sys.http.post('/api/v1/auth/login/2fa', { challenge, recovery_code: 'aaaa-bbbb-cccc-dddd' }), 400, 'auth.err.invalid_code');
    }
    const right = totpCode(secret, new Date(Date.now() + 30_000));
    expectError(await sys.http.post('/api/v1/auth/login/2fa', { challenge, code: right }), 400, 'auth.err.invalid_token');
    // A fresh challenge lives 5 minutes: past them (its key expired), it is unknown.
    const second = (await passwordLogin(m)).body.challenge as string;
    const key = `${prefix()}2fa:challenge:${digest(second)}`;
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(290);
    expect(ttl).toBeLessThanOrEqual(300);
    await redis.del(key);
    expectError(await sys.http.post('/api/v1/auth/login/2fa', { challenge: second, code: right }), 400, 'auth.err.invalid_token');
  });

  it('answers 429 for the rest of the window after 10 failed second factors of a user, even to a right code', async () => {
    const { m, secret } = await enrolledOwner();
    for (let round = 0; round < 2; round += 1) {
      const { challenge } = (await passwordLogin(m)).body as { challenge: string };
      for (let i = 0; i < 5; i += 1) {
        expectError(await sys.http.post('/api/v1/auth/login/2fa', { challenge, recovery_code: 'aaaa-bbbb-cccc-dddd' }), 400, 'auth.err.invalid_code');
      }
    }
    const { challenge } = (await passwordLogin(m)).body as { challenge: string };
    const locked = await sys.http.post('/api/v1/auth/login/2fa', { challenge, code: totpCode(secret, new Date(Date.now() + 30_000)) });
    expectError(locked, 429, 'common.err.rate_limited');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
  });

  it('answers an invitation accepted with the password of a user with a second factor with the challenge, not a session', async () => {
    const invited = await enrolledOwner();
    const inviter = await enrolledOwner();
    const invitation = await sys.http.post('/api/v1/invitations', { email: invited.m.email, role: 'developer' }, { headers: bearer(inviter.token) });
    expect(invitation.status).toBe(201);
    const mails = await sys.mail.waitForMailTo(invited.m.email, 2);
    const token = /token=([A-Za-z0-9_-]{43})/.exec(mails.text)?.[1];
    const accepted = await sys.http.post('/api/v1/invitations/accept', { token, password: invited.m.password });
    expect(accepted.body).toEqual({ two_factor_required: true, challenge: expect.any(String), methods: ['totp', 'recovery_code'] });
    expect(accepted.headers.get('set-cookie')).toBeNull();
    const done = await sys.http.post('/api/v1/auth/login/2fa', { challenge: accepted.body.challenge, recovery_code: invited.recoveryCodes[0] });
    expect((await sys.http.get('/api/v1/me', { headers: bearer(done.body.session_token) })).body.account).toEqual({
      merchant_id: inviter.m.id,
      role: 'developer',
      require_two_factor: false,
    });
  });

  it('refuses a malformed passkey assertion, naming the field (passkeys themselves: services/gateway/test/passkeys-api.test.ts)', async () => {
    const { m } = await enrolledOwner();
    const { challenge } = (await passwordLogin(m)).body as { challenge: string };
    const res = await sys.http.post('/api/v1/auth/login/2fa', { challenge, passkey: { id: 'x' } });
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.details[0].field).toMatch(/^passkey\./);
  });
});

describe('a reused TOTP code mails its holder (ASVS 2.8.5)', () => {
  const REUSED_RU = 'Код из приложения-аутентификатора использован повторно в «Платёжных ссылках»';
  const REUSED_EN = 'A code from your authenticator app was used again on Payment links';

  /** The reuse notices queued for an address: written in the refusing request's transaction, so final once it answered. */
  const queuedNotices = async (email: string): Promise<number> =>
    (
      await sys.sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM gateway.mail_queue WHERE recipient = $1 AND template = 'second_factor_code_reused'`,
        [email],
      )
    )[0]?.n ?? -1;

  const userIdOf = async (email: string): Promise<string> =>
    (await sys.sql<{ id: string }>('SELECT id FROM gateway.users WHERE lower(email) = lower($1)', [email]))[0]?.id ?? '';

  /** A right code of a step already used: the step after now, taken once by `use` first. */
  async function usedCode(secret: string, use: (code: string) => Promise<ApiResponse>): Promise<string> {
    const code = totpCode(secret, new Date(Date.now() + 30_000));
    expect((await use(code)).status).toBeLessThan(300);
    return code;
  }

  it('at sign-in: refused, one mail in the user’s language with the Security page and no code; more reuses within the hour mail nothing', async () => {
    const { m, secret, recoveryCodes } = await enrolledOwner();
    const signIn = async (code: string) => sys.http.post('/api/v1/auth/login/2fa', { challenge: (await passwordLogin(m)).body.challenge, code });
    const code = await usedCode(secret, signIn);
    expect(await queuedNotices(m.email)).toBe(0);

    const replayed = await signIn(code);
    expectError(replayed, 400, 'auth.err.invalid_code');
    expect(replayed.headers.get('set-cookie')).toBeNull();
    const mail = await sys.mail.waitFor((x) => x.envelopeTo.includes(m.email.toLowerCase()) && x.subject === REUSED_RU);
    expect(mail.language).toBe('ru');
    expect(mail.text).toContain('использован второй раз');
    expect(mail.text).toMatch(/^https?:\/\/\S+\/dashboard\/security$/m);
    expect(mail.html).toMatch(/href="https?:\/\/[^"]+\/dashboard\/security"/);
    for (const body of [mail.text, mail.html, mail.subject]) expect(body).not.toContain(code);

    // Replayed again at sign-in and at step-up within the hour: refused each time, and no second notice queued.
    expectError(await signIn(code), 400, 'auth.err.invalid_code');
    const withRecovery = await sys.http.post('/api/v1/auth/login/2fa', {
      challenge: (await passwordLogin(m)).body.challenge,
      recovery_code: recoveryCodes[0],
    });
    const session = withRecovery.body.session_token as string;
    expectError(await sys.http.post('/api/v1/auth/step-up', { code }, { headers: bearer(session) }), 400, 'auth.err.invalid_code');
    expect(await queuedNotices(m.email)).toBe(1);

    // Once the hour has passed (the last notice's time moved back), the next reuse mails again.
    await sys.sql(`UPDATE gateway.user_totp SET reuse_mailed_at = reuse_mailed_at - interval '1 hour' WHERE user_id = $1`, [await userIdOf(m.email)]);
    expectError(await signIn(code), 400, 'auth.err.invalid_code');
    expect(await queuedNotices(m.email)).toBe(2);
    await sys.mail.waitFor((x) => x.envelopeTo.includes(m.email.toLowerCase()) && x.subject === REUSED_RU && x.id !== mail.id);
    expect(sys.mail.mailsTo(m.email).filter((x) => x.subject === REUSED_RU)).toHaveLength(2);
  });

  it('at step-up: refused, one mail in English for an English-speaking user, however many replays race', async () => {
    const { m, token, secret } = await enrolledOwner();
    await sys.sql(`UPDATE gateway.users SET language = 'en' WHERE id = $1`, [await userIdOf(m.email)]);
    const stepUp = (code: string) => sys.http.post('/api/v1/auth/step-up', { code }, { headers: bearer(token) });
    const code = await usedCode(secret, stepUp);

    const replays = await Promise.all(Array.from({ length: 5 }, () => stepUp(code)));
    for (const replayed of replays) expectError(replayed, 400, 'auth.err.invalid_code');
    expect(await queuedNotices(m.email)).toBe(1);
    const mail = await sys.mail.waitFor((x) => x.envelopeTo.includes(m.email.toLowerCase()) && x.subject === REUSED_EN);
    expect(mail.language).toBe('en');
    expect(mail.text).toContain('used a second time');
    expect(mail.text).toContain('Change your password');
    expect(mail.text).not.toContain(code);
    expect(sys.mail.mailsTo(m.email).filter((x) => x.subject === REUSED_EN)).toHaveLength(1);
  });

  it('mails nothing for a wrong code', async () => {
    const { m, token, secret } = await enrolledOwner();
    const wrong = String((Number(totpCode(secret, new Date(Date.now() + 30_000))) + 1) % 1_000_000).padStart(6, '0');
    expectError(await sys.http.post('/api/v1/auth/step-up', { code: wrong }, { headers: bearer(token) }), 400, 'auth.err.invalid_code');
    expect(await queuedNotices(m.email)).toBe(0);
  });
});

/** A member of `owner`'s account with `role`, invited and joined as a new user; answers their plain session. */
async function member(ownerToken: string, role: string): Promise<{ userId: string; token: string; email: string; password: string }> {
  const email = `tf-${randomBytes(5).toString('hex')}@example.com`;
  const password = 'a member passphrase';
  expect((await sys.http.post('/api/v1/invitations', { email, role }, { headers: bearer(ownerToken) })).status).toBe(201);
  const token = /token=([A-Za-z0-9_-]{43})/.exec((await sys.mail.waitForMailTo(email)).text)?.[1];
  const joined = await sys.http.post('/api/v1/invitations/accept', { token, password });
  expect(joined.status).toBe(200);
  const me = await sys.http.get('/api/v1/me', { headers: bearer(joined.body.session_token) });
  return { userId: me.body.user_id as string, token: joined.body.session_token as string, email, password };
}

describe("the account's policy", () => {
  it('lets the owner require a second factor; a member without one is served only enrolling', async () => {
    const { token } = await enrolledOwner();
    const dev = await member(token, 'developer');
    const admin = await member(token, 'admin');
    await enrollTotp(sys.http.call, admin.token, admin.email);
    const policyOf = async (t: string) => (await sys.http.get('/api/v1/me', { headers: bearer(t) })).body.account as Record<string, unknown>;
    expect(await policyOf(dev.token)).toMatchObject({ role: 'developer', require_two_factor: false });
    expect((await sys.http.call('PATCH', '/api/v1/account', { headers: bearer(token), body: { require_two_factor: true } })).body).toMatchObject({
      require_two_factor: true,
    });
    expectError(await sys.http.get('/api/v1/payment-links', { headers: bearer(dev.token) }), 403, 'auth.err.two_factor_required');
    // /me still answers the member who must enroll, and says why the rest is refused: the account's policy.
    expect(await policyOf(dev.token)).toMatchObject({ role: 'developer', require_two_factor: true });
    expect(await policyOf(token)).toMatchObject({ role: 'owner', require_two_factor: true });
    await enrollTotp(sys.http.call, dev.token, dev.email);
    expect((await sys.http.get('/api/v1/payment-links', { headers: bearer(dev.token) })).status).toBe(200);
    // Only the owner sets it (an admin is refused by role, before any factor is asked for).
    expectError(
      await sys.http.call('PATCH', '/api/v1/account', { headers: bearer(admin.token), body: { require_two_factor: false } }),
      403,
      'common.err.forbidden',
    );
  });
});

describe('step-up', () => {
  it('asks the role first: a viewer is refused by role, a developer without a factor is asked to enroll', async () => {
    const { token } = await enrolledOwner();
    const viewer = await member(token, 'viewer');
    expectError(await sys.http.post('/api/v1/api-keys', {}, { headers: bearer(viewer.token) }), 403, 'common.err.forbidden');
    const dev = await member(token, 'developer');
    expectError(await sys.http.post('/api/v1/api-keys', {}, { headers: bearer(dev.token) }), 403, 'auth.err.two_factor_required');
  });

  it('renews with a code: a stale session is refused, then allowed after POST /api/v1/auth/step-up', async () => {
    const { token, secret } = await enrolledOwner();
    await verifiedAgo(token, TEN_MINUTES);
    expectError(await sys.http.post('/api/v1/api-keys', {}, { headers: bearer(token) }), 403, 'auth.err.step_up_required');
    expect(
      (await sys.http.post('/api/v1/auth/step-up', { code: totpCode(secret, new Date(Date.now() + 30_000)) }, { headers: bearer(token) })).status,
    ).toBe(204);
    expect((await sys.http.post('/api/v1/api-keys', {}, { headers: bearer(token) })).status).toBe(201);
  });

  it('guards every listed action of a session after the role: refused when stale, done when verified within 10 minutes', async () => {
    const { merchant: m, shop } = await sys.merchantWithShop();
    const token = (await passwordLogin(m)).body.session_token as string;
    await enrollTotp(sys.http.call, token, m.email);
    const key = await sys.http.post('/api/v1/api-keys', {}, { headers: bearer(token) });
    const other = await member(token, 'developer');
    const missing = randomUUID();
    /** Each listed action as a session does it; `ok`: its answer once stepped up; `viewer`: a viewer's (no factor). */
    const actions: [string, (h: { headers: Record<string, string> }) => Promise<ApiResponse>, number, string | number][] = [
      ['API key create', (h) => sys.http.post('/api/v1/api-keys', {}, h), 201, 'common.err.forbidden'],
      ['API key reissue', (h) => sys.http.post(`/api/v1/api-keys/${key.body.id}/reissue`, { grace_minutes: 5 }, h), 201, 'common.err.forbidden'],
      ['API key revoke', (h) => sys.http.post(`/api/v1/api-keys/${key.body.id}/revoke`, {}, h), 200, 'common.err.forbidden'],
      ['webhook secret rotation', (h) => sys.http.post(`/api/v1/shops/${shop.id}/webhook-secret/rotate`, {}, h), 200, 'common.err.forbidden'],
      ['cashier key reissue', (h) => sys.http.post(`/api/v1/shops/${shop.id}/cashier-key/reissue`, {}, h), 200, 'common.err.forbidden'],
      [
        'inviting a member',
        (h) => sys.http.post('/api/v1/invitations', { email: `x-${randomBytes(4).toString('hex')}@example.com`, role: 'viewer' }, h),
        201,
        'common.err.forbidden',
      ],
      [
        'changing a member',
        (h) => sys.http.call('PATCH', `/api/v1/members/${other.userId}`, { ...h, body: { role: 'finance' } }),
        200,
        'common.err.forbidden',
      ],
      ['removing a member', (h) => sys.http.call('DELETE', `/api/v1/members/${other.userId}`, h), 204, 'common.err.forbidden'],
      // Past the gate, the links service looks for the record: 404 proves the gate let it through (and for a viewer,
      // existence is checked before the role).
      ['settling an unresolved payment', (h) => sys.http.post(`/api/v1/unresolved-payments/${missing}/settle`, {}, h), 404, 404],
      ['refunding an unresolved payment', (h) => sys.http.post(`/api/v1/unresolved-payments/${missing}/refund`, {}, h), 404, 404],
      ['a refund over 10,000.00 RUB', (h) => sys.http.post(`/api/v1/payment-links/${missing}/refunds`, { amount: '10000.01' }, h), 404, 404],
      ['new recovery codes', (h) => sys.http.post('/api/v1/me/2fa/recovery-codes', {}, h), 201, 'auth.err.two_factor_required'],
      [
        'the account policy',
        (h) => sys.http.call('PATCH', '/api/v1/account', { ...h, body: { require_two_factor: false } }),
        200,
        'common.err.forbidden',
      ],
      [
        'changing the password',
        (h) => sys.http.post('/api/v1/auth/password', { current_password: m.password, new_password: 'a brand new passphrase' }, h),
        204,
        'auth.err.two_factor_required',
      ],
      ['turning a second factor off', (h) => sys.http.call('DELETE', '/api/v1/me/2fa/totp', h), 204, 'auth.err.two_factor_required'],
    ];
    // The role first: a viewer is refused by role without being asked for a factor; what every role may do for
    // itself (its password, its factors) asks a viewer with none to enroll one.
    const viewer = { headers: bearer((await member(token, 'viewer')).token) };
    for (const [name, act, , refusal] of actions) {
      const res = await act(viewer);
      expect([name, res.status, res.body?.error?.code]).toEqual(
        typeof refusal === 'number' ? [name, refusal, 'common.err.not_found'] : [name, 403, refusal],
      );
    }
    const h = { headers: bearer(token) };
    for (const [name, act, ok] of actions) {
      await verifiedAgo(token, TEN_MINUTES);
      const refused = await act(h);
      expect([name, refused.status, refused.body?.error?.code]).toEqual([name, 403, 'auth.err.step_up_required']);
      await verifiedAgo(token, TEN_MINUTES - 5000);
      const done = await act(h);
      expect([name, done.status]).toEqual([name, ok]);
    }
    // A refund at the limit needs no step-up.
    await verifiedAgo(token, TEN_MINUTES);
    expect((await sys.http.post(`/api/v1/payment-links/${missing}/refunds`, { amount: '10000.00' }, h)).status).toBe(404);
    // Each action is in the audit log.
    const events = await sys.sql<{ type: string }>('SELECT type FROM gateway.audit_events WHERE merchant_id = $1', [m.id]);
    const types = new Set(events.map((e) => e.type));
    for (const t of [
      'two_factor.totp_enabled',
      'api_key.created',
      'api_key.reissued',
      'api_key.revoked',
      'member.invited',
      'member.role_changed',
      'member.removed',
      'two_factor.recovery_codes_regenerated',
      'account.password_changed',
      'two_factor.totp_disabled',
    ]) {
      expect([t, types.has(t)]).toEqual([t, true]);
    }
  });

  it('asks for step-up on a refund over 10,000.00 RUB only, a refund of all that is left judged by what is left, and audits it', async () => {
    const { merchant: m, shop } = await sys.merchantWithShop();
    const token = await sys.login(m);
    const h = { headers: bearer(token) };
    const paidLink = async (amount: string): Promise<string> => {
      const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount }, { headers: m.keys });
      expect((await sys.providerCallback(sandboxPaymentId(created.body.id as string), 'paid')).status).toBe(200);
      return created.body.id as string;
    };
    const big = await paidLink('20000.00');
    const exact = await paidLink('10000.00');
    await verifiedAgo(token, TEN_MINUTES);
    expectError(await sys.http.post(`/api/v1/payment-links/${big}/refunds`, {}, h), 403, 'auth.err.step_up_required');
    expectError(await sys.http.post(`/api/v1/payment-links/${big}/refunds`, { amount: '10000.01' }, h), 403, 'auth.err.step_up_required');
    expect((await sys.http.post(`/api/v1/payment-links/${big}/refunds`, { amount: '10000.00' }, h)).status).toBe(201);
    expect((await sys.http.post(`/api/v1/payment-links/${exact}/refunds`, {}, h)).status).toBe(201);
    // API keys never step up.
    expect((await sys.http.post(`/merchant/v1/payment-links/${big}/refunds`, { amount: '5000.00' }, { headers: m.keys })).status).toBe(201);
    await verifiedAgo(token, 60_000);
    const topped = await paidLink('30000.00');
    expect((await sys.http.post(`/api/v1/payment-links/${topped}/refunds`, { amount: '10000.01' }, h)).status).toBe(201);
    const audited = await sys.sql<{ subject: string }>(
      `SELECT subject FROM gateway.audit_events WHERE merchant_id = $1 AND type = 'refund.created_over_step_up_limit'`,
      [m.id],
    );
    expect(audited.map((a) => a.subject)).toEqual([topped]);
  });

  it('never asks an API key pair for a second factor', async () => {
    const { merchant } = await sys.merchantWithShop();
    expectError(
      await sys.http.post(`/merchant/v1/unresolved-payments/${randomUUID()}/settle`, {}, { headers: merchant.keys }),
      404,
      'common.err.not_found',
    );
  });
});
