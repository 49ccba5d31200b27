import { randomUUID } from 'node:crypto';
import { enqueueMail } from '@pl/mail';
import { createLogger } from '@pl/telemetry';
import { expectError } from '../../../tests/support/http';
import { PasskeyRepository } from '../src/data/passkey.repository';
import { createRedis, type Redis } from '../src/data/redis';
import { WebAuthnChallenges } from '../src/data/webauthn-challenges';
import { Passkeys, relyingPartyOf } from '../src/domain/passkeys';
import { sessionTokenDigest } from '../src/domain/session-token';
import { bearer, PUBLIC_ORIGIN, startGateways, type Gateways } from './gateways';
import { SoftwareAuthenticator } from './software-authenticator';

jest.setTimeout(30_000);

let g: Gateways;
let redis: Redis;
/** The second-factor seam as sign-in and step-up get it, over the gateways' database and a Redis of its own prefix. */
let seam: Passkeys;
beforeAll(async () => {
  g = await startGateways(1);
  redis = createRedis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', createLogger('test', 'silent'));
  await redis.connect();
  const challenges = new WebAuthnChallenges(redis, `passkeys-seam-${randomUUID()}:`);
  seam = new Passkeys(new PasskeyRepository(g.db, enqueueMail), challenges, relyingPartyOf(PUBLIC_ORIGIN));
});
afterAll(async () => {
  await redis?.close();
  await g?.stop();
});

const call: Gateways['clients'][number] = (method, path, init) => (g.clients[0] as Gateways['clients'][number])(method, path, init);
const PASSKEYS = '/api/v1/me/2fa/passkeys';

interface User {
  userId: string;
  email: string;
  password: string;
  token: string;
  merchantId: string;
  auth: Record<string, string>;
}

/** A user signed in and stepped up as the gateway tests' helper does it: TOTP on, confirmed in this session. */
async function signedIn(): Promise<User> {
  const m = await g.merchant();
  return sessionOf(m, await g.signIn(m));
}

/** A user with no second factor, signed in with the password alone. */
async function passwordOnly(): Promise<User> {
  const m = await g.merchant();
  const login = await call('POST', '/api/v1/auth/login', { body: { email: m.email, password: m.password } });
  expect(login.status).toBe(200);
  return sessionOf(m, login.body.session_token as string);
}

async function sessionOf(m: { id: string; email: string; password: string }, token: string): Promise<User> {
  const auth = bearer(token);
  const me = await call('GET', '/api/v1/me', { headers: auth });
  return { userId: me.body.user_id as string, email: m.email, password: m.password, token, merchantId: m.id, auth };
}

async function registrationOptions(u: User): Promise<{ challenge: string } & Record<string, unknown>> {
  const res = await call('POST', `${PASSKEYS}/registration-options`, { headers: u.auth });
  expect(res.status).toBe(200);
  return res.body;
}

/** Registers a new software passkey for `u` and answers it with the stored passkey's view. */
async function addPasskey(u: User, name = 'Laptop'): Promise<{ authenticator: SoftwareAuthenticator; id: string }> {
  const authenticator = new SoftwareAuthenticator(PUBLIC_ORIGIN);
  const options = await registrationOptions(u);
  const res = await call('POST', PASSKEYS, { headers: u.auth, body: { name, response: authenticator.register(options) } });
  expect(res.status).toBe(201);
  return { authenticator, id: res.body.id as string };
}

/** The passkey mails queued for `to` (the test users' TOTP has its own). */
const mailsTo = (to: string, template: string) =>
  g.db.query<{ params: Record<string, string> }>(
    `SELECT params FROM mail_queue WHERE recipient = $1 AND template = $2 AND params->>'factor' = 'passkey'`,
    [to, template],
  );
/** The passkey events of the user's audit log in their account (the sign-in is there too). */
const auditTypes = async (u: User): Promise<string[]> =>
  (
    await g.db.query<{ type: string }>(
      `SELECT type FROM audit_events WHERE merchant_id = $1 AND user_id = $2 AND type LIKE 'account.passkey_%' ORDER BY seq`,
      [u.merchantId, u.userId],
    )
  ).map((r) => r.type);
const storedCount = async (u: User): Promise<number> =>
  (await g.db.query<{ n: number }>('SELECT count(*)::int AS n FROM passkeys WHERE user_id = $1', [u.userId]))[0]?.n ?? -1;

describe('registering a passkey', () => {
  it('offers options for this site with no attestation, and stores a passkey whose attestation verifies', async () => {
    const u = await signedIn();
    const options = await registrationOptions(u);
    expect(options).toMatchObject({
      rp: { id: 'localhost', name: 'Payment links' },
      user: { name: u.email, id: Buffer.from(u.userId.replaceAll('-', ''), 'hex').toString('base64url') },
      attestation: 'none',
      authenticatorSelection: { userVerification: 'preferred', residentKey: 'preferred' },
      excludeCredentials: [],
      timeout: 300_000,
    });
    const authenticator = new SoftwareAuthenticator(PUBLIC_ORIGIN);
    const created = await call('POST', PASSKEYS, { headers: u.auth, body: { name: 'Work laptop', response: authenticator.register(options) } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: 'Work laptop', created_at: expect.stringMatching(/\+03:00$/), last_used_at: null });

    const listed = await call('GET', PASSKEYS, { headers: u.auth });
    expect(listed.body).toEqual({ passkeys: [created.body] });
    const me = await call('GET', '/api/v1/me', { headers: u.auth });
    expect(me.body.two_factor).toMatchObject({ passkeys: 1 });
    const [row] = await g.db.query<{ credential_id: string; counter: string; transports: string[] }>(
      'SELECT credential_id, counter::text AS counter, transports FROM passkeys WHERE id = $1',
      [created.body.id],
    );
    expect(row).toEqual({ credential_id: authenticator.id, counter: '0', transports: ['internal'] });
    expect(await mailsTo(u.email, 'second_factor_added')).toEqual([{ params: { factor: 'passkey' } }]);
    expect(await auditTypes(u)).toEqual(['account.passkey_added']);

    // The next options exclude it, so the browser does not register the same authenticator twice.
    const next = await registrationOptions(u);
    expect(next.excludeCredentials).toEqual([{ id: authenticator.id, type: 'public-key', transports: ['internal'] }]);
  });

  it.each([
    ['made on another site', { origin: 'https://evil.example' }],
    ['signed for another relying party', { rpId: 'evil.example' }],
    ['answering a challenge never issued', { challenge: 'bm90LWlzc3VlZC1ieS10aGUtc2VydmVy' }],
  ])('refuses a response %s with 400 passkey.err.verification_failed and stores nothing', async (_what, tampering) => {
    const u = await signedIn();
    const options = await registrationOptions(u);
    const response = new SoftwareAuthenticator(PUBLIC_ORIGIN).register(options, tampering);
    expectError(await call('POST', PASSKEYS, { headers: u.auth, body: { name: 'Key', response } }), 400, 'passkey.err.verification_failed');
    expect(await storedCount(u)).toBe(0);
  });

  it('takes a challenge once, and only from the user it was issued to', async () => {
    const u = await signedIn();
    const other = await signedIn();
    const options = await registrationOptions(u);
    const authenticator = new SoftwareAuthenticator(PUBLIC_ORIGIN);
    // Another user's session cannot spend u's challenge...
    const stolen = await call('POST', PASSKEYS, { headers: other.auth, body: { name: 'Key', response: authenticator.register(options) } });
    expectError(stolen, 400, 'passkey.err.verification_failed');
    // ...and a challenge answered once (even wrongly) is gone.
    const second = await registrationOptions(u);
    const wrong = new SoftwareAuthenticator(PUBLIC_ORIGIN).register(second, { origin: 'https://evil.example' });
    expectError(await call('POST', PASSKEYS, { headers: u.auth, body: { name: 'Key', response: wrong } }), 400, 'passkey.err.verification_failed');
    const retried = await call('POST', PASSKEYS, { headers: u.auth, body: { name: 'Key', response: authenticator.register(second) } });
    expectError(retried, 400, 'passkey.err.verification_failed');
    const replayed = authenticator.register(await registrationOptions(u));
    expect((await call('POST', PASSKEYS, { headers: u.auth, body: { name: 'Key', response: replayed } })).status).toBe(201);
    expectError(await call('POST', PASSKEYS, { headers: u.auth, body: { name: 'Key', response: replayed } }), 400, 'passkey.err.verification_failed');
    expect(await storedCount(u)).toBe(1);
  });

  it('refuses an authenticator registered already (409) and an eleventh passkey (422)', async () => {
    const u = await signedIn();
    const { authenticator } = await addPasskey(u);
    const again = authenticator.register(await registrationOptions(u));
    expectError(await call('POST', PASSKEYS, { headers: u.auth, body: { name: 'Again', response: again } }), 409, 'passkey.err.already_registered');
    for (let i = 0; i < 9; i++) {
      await g.db.query('INSERT INTO passkeys (id, user_id, credential_id, public_key, name) VALUES ($1, $2, $3, $4, $5)', [
        randomUUID(),
        u.userId,
        `filler-${randomUUID()}`,
        Buffer.from('not a key'),
        `Filler ${i}`,
      ]);
    }
    const eleventh = new SoftwareAuthenticator(PUBLIC_ORIGIN).register(await registrationOptions(u));
    expectError(
      await call('POST', PASSKEYS, { headers: u.auth, body: { name: 'One too many', response: eleventh } }),
      422,
      'passkey.err.limit_reached',
    );
    expect(await storedCount(u)).toBe(10);
  });

  it('validates the body: a name 1..64 characters, a response shaped as WebAuthn says, nothing else', async () => {
    const u = await signedIn();
    const response = new SoftwareAuthenticator(PUBLIC_ORIGIN).register(await registrationOptions(u));
    for (const body of [
      { name: ' ', response },
      { name: 'x'.repeat(65), response },
      { name: 'Key' },
      { name: 'Key', response: { ...response, type: 'password' } },
      { name: 'Key', response: { ...response, response: { clientDataJSON: 'not base64url!' } } },
      { name: 'Key', response, admin: true },
    ]) {
      expectError(await call('POST', PASSKEYS, { headers: u.auth, body }), 400, 'common.err.validation_failed');
    }
    expect(await storedCount(u)).toBe(0);
  });

  it('needs a session', async () => {
    expectError(await call('POST', `${PASSKEYS}/registration-options`), 401, 'common.err.unauthorized');
    expectError(await call('GET', PASSKEYS), 401, 'common.err.unauthorized');
  });
});

describe('managing passkeys', () => {
  it('renames and removes one, mailing and auditing the removal; the list is oldest first', async () => {
    const u = await signedIn();
    const first = await addPasskey(u, 'Phone');
    const second = await addPasskey(u, 'Security key');
    const renamed = await call('PATCH', `${PASSKEYS}/${first.id}`, { headers: u.auth, body: { name: 'Old phone' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: first.id, name: 'Old phone' });
    const listed = await call('GET', PASSKEYS, { headers: u.auth });
    expect(listed.body.passkeys.map((p: { name: string }) => p.name)).toEqual(['Old phone', 'Security key']);

    expect((await call('DELETE', `${PASSKEYS}/${first.id}`, { headers: u.auth })).status).toBe(204);
    const after = await call('GET', PASSKEYS, { headers: u.auth });
    expect(after.body.passkeys.map((p: { id: string }) => p.id)).toEqual([second.id]);
    expect(await mailsTo(u.email, 'second_factor_removed')).toEqual([{ params: { factor: 'passkey' } }]);
    expect(await auditTypes(u)).toEqual(['account.passkey_added', 'account.passkey_added', 'account.passkey_removed']);
    expectError(await call('DELETE', `${PASSKEYS}/${first.id}`, { headers: u.auth }), 404, 'common.err.not_found');
  });

  it("answers another user's passkey, an unknown id and a malformed one with 404, changing nothing", async () => {
    const owner = await signedIn();
    const other = await signedIn();
    const { id } = await addPasskey(owner, 'Mine');
    for (const path of [`${PASSKEYS}/${id}`, `${PASSKEYS}/${randomUUID()}`, `${PASSKEYS}/not-a-uuid`]) {
      expectError(await call('PATCH', path, { headers: other.auth, body: { name: 'Theirs now' } }), 404, 'common.err.not_found');
      expectError(await call('DELETE', path, { headers: other.auth }), 404, 'common.err.not_found');
    }
    expect((await call('GET', PASSKEYS, { headers: other.auth })).body).toEqual({ passkeys: [] });
    const mine = await call('GET', PASSKEYS, { headers: owner.auth });
    expect(mine.body.passkeys).toEqual([expect.objectContaining({ id, name: 'Mine' })]);
  });

  it('validates a rename before looking the passkey up', async () => {
    const u = await signedIn();
    expectError(await call('PATCH', `${PASSKEYS}/${randomUUID()}`, { headers: u.auth, body: { name: '' } }), 400, 'common.err.validation_failed');
    expectError(await call('PUT', `${PASSKEYS}/${randomUUID()}`, { headers: u.auth, body: { name: 'x' } }), 405, 'common.err.method_not_allowed');
  });
});

describe('the passkey second factor (the seam of sign-in and step-up)', () => {
  const counterOf = async (id: string): Promise<{ counter: string; used: boolean }> =>
    (
      await g.db.query<{ counter: string; used: boolean }>(
        'SELECT counter::text AS counter, last_used_at IS NOT NULL AS used FROM passkeys WHERE id = $1',
        [id],
      )
    )[0] ?? { counter: 'none', used: false };

  it('has no options for a user without passkeys, and options naming every passkey of one with them', async () => {
    const u = await signedIn();
    expect(await seam.authenticationOptions(u.userId)).toBeNull();
    const a = await addPasskey(u, 'Phone');
    const b = await addPasskey(u, 'Key');
    const options = await seam.authenticationOptions(u.userId);
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'preferred', timeout: 300_000 });
    expect(options?.allowCredentials?.map((c) => c.id)).toEqual([a.authenticator.id, b.authenticator.id]);
  });

  it('accepts a signed assertion once, moving the counter and the last use on', async () => {
    const u = await signedIn();
    const { authenticator, id } = await addPasskey(u);
    const options = await seam.authenticationOptions(u.userId);
    if (!options) throw new Error('no options');
    const assertion = authenticator.assert(options);
    expect(await seam.verifyAssertion(u.userId, assertion)).toBe(true);
    expect(await counterOf(id)).toEqual({ counter: '1', used: true });
    const listed = await call('GET', PASSKEYS, { headers: u.auth });
    expect(listed.body.passkeys[0].last_used_at).toMatch(/\+03:00$/);
    // The same assertion again: its challenge was taken.
    expect(await seam.verifyAssertion(u.userId, assertion)).toBe(false);
    expect(await counterOf(id)).toEqual({ counter: '1', used: true });
  });

  it.each([
    ['whose counter did not move forward (a cloned authenticator)', { counter: 1 }],
    ['signed by another key', { foreignKey: true }],
    ['made on another site', { origin: 'https://evil.example' }],
    ['for another relying party', { rpId: 'evil.example' }],
  ])('refuses an assertion %s and leaves the counter', async (_what, tampering) => {
    const u = await signedIn();
    const { authenticator, id } = await addPasskey(u);
    const first = await seam.authenticationOptions(u.userId);
    if (!first) throw new Error('no options');
    expect(await seam.verifyAssertion(u.userId, authenticator.assert(first))).toBe(true);
    const second = await seam.authenticationOptions(u.userId);
    if (!second) throw new Error('no options');
    expect(await seam.verifyAssertion(u.userId, authenticator.assert(second, tampering))).toBe(false);
    expect(await counterOf(id)).toEqual({ counter: '1', used: true });
  });

  it("refuses another user's challenge, another user's passkey, a registration challenge and a removed passkey", async () => {
    const u = await signedIn();
    const other = await signedIn();
    const mine = await addPasskey(u);
    const theirs = await addPasskey(other);
    const otherOptions = await seam.authenticationOptions(other.userId);
    if (!otherOptions) throw new Error('no options');
    // u's passkey answering a challenge issued to the other user, presented as u's or as theirs.
    expect(await seam.verifyAssertion(u.userId, mine.authenticator.assert(otherOptions))).toBe(false);
    expect(await seam.verifyAssertion(other.userId, mine.authenticator.assert(otherOptions))).toBe(false);
    const options = await seam.authenticationOptions(u.userId);
    if (!options) throw new Error('no options');
    expect(await seam.verifyAssertion(u.userId, theirs.authenticator.assert(options))).toBe(false);
    const registration = await seam.registrationOptions({ id: u.userId, email: u.email });
    expect(await seam.verifyAssertion(u.userId, mine.authenticator.assert(registration))).toBe(false);

    const fresh = await seam.authenticationOptions(u.userId);
    if (!fresh) throw new Error('no options');
    expect((await call('DELETE', `${PASSKEYS}/${mine.id}`, { headers: u.auth })).status).toBe(204);
    expect(await seam.verifyAssertion(u.userId, mine.authenticator.assert(fresh))).toBe(false);
  });
});

describe('passkeys as the second factor of sign-in and step-up', () => {
  const TEN_MINUTES = 10 * 60 * 1000;

  /** Moves the session's last verified second factor `ms` into the past, as if that much time had gone by. */
  async function verifiedAgo(u: User, ms: number): Promise<void> {
    const [key] = await redis.keys(`*:session:${sessionTokenDigest(u.token)}`);
    if (!key) throw new Error('no session in Redis');
    const stored = JSON.parse((await redis.get(key)) ?? '{}') as Record<string, unknown>;
    await redis.set(key, JSON.stringify({ ...stored, second_factor_at: Date.now() - ms }), { KEEPTTL: true });
  }

  /** The password step: the challenge and the methods offered. */
  async function passwordStep(u: User): Promise<{ challenge: string; methods: string[] }> {
    const login = await call('POST', '/api/v1/auth/login', { body: { email: u.email, password: u.password } });
    expect(login.status).toBe(200);
    expect(login.body.two_factor_required).toBe(true);
    return login.body;
  }

  const loginOptions = (challenge: string) => call('POST', '/api/v1/auth/login/2fa/passkey-options', { body: { challenge } });

  it('signs in with a passkey: the login offers it, its options name the passkeys, one assertion opens one session', async () => {
    const u = await signedIn();
    const { authenticator } = await addPasskey(u);
    const step = await passwordStep(u);
    expect(step.methods).toEqual(['totp', 'recovery_code', 'passkey']);
    const options = await loginOptions(step.challenge);
    expect(options.status).toBe(200);
    expect(options.body).toMatchObject({ rpId: 'localhost', allowCredentials: [{ id: authenticator.id, type: 'public-key' }] });
    const assertion = authenticator.assert(options.body);
    const signedInWithPasskey = await call('POST', '/api/v1/auth/login/2fa', { body: { challenge: step.challenge, passkey: assertion } });
    expect(signedInWithPasskey.status).toBe(200);
    const me = await call('GET', '/api/v1/me', { headers: bearer(signedInWithPasskey.body.session_token as string) });
    expect(me.body).toMatchObject({ user_id: u.userId, two_factor: { totp: true, passkeys: 1 } });
    // The same assertion on another sign-in: its options' challenge was taken.
    const again = await passwordStep(u);
    expectError(
      await call('POST', '/api/v1/auth/login/2fa', { body: { challenge: again.challenge, passkey: assertion } }),
      400,
      'auth.err.invalid_code',
    );
  });

  it('refuses a wrong assertion (400 invalid_code), a malformed one (400), a dead challenge (400 invalid_token), and options for a user without passkeys (409)', async () => {
    const u = await signedIn();
    const { authenticator } = await addPasskey(u);
    const step = await passwordStep(u);
    // Options take none of the challenge's 5 tries.
    for (let i = 0; i < 6; i++) expect((await loginOptions(step.challenge)).status).toBe(200);
    const options = (await loginOptions(step.challenge)).body;
    const forged = authenticator.assert(options, { origin: 'https://evil.example' });
    expectError(await call('POST', '/api/v1/auth/login/2fa', { body: { challenge: step.challenge, passkey: forged } }), 400, 'auth.err.invalid_code');
    const malformed = { ...authenticator.assert(options), response: { signature: 'x' } };
    expectError(
      await call('POST', '/api/v1/auth/login/2fa', { body: { challenge: step.challenge, passkey: malformed } }),
      400,
      'common.err.validation_failed',
    );
    const fresh = (await loginOptions(step.challenge)).body;
    expect((await call('POST', '/api/v1/auth/login/2fa', { body: { challenge: step.challenge, passkey: authenticator.assert(fresh) } })).status).toBe(
      200,
    );
    // The sign-in challenge is used now: no more options for it.
    expectError(await loginOptions(step.challenge), 400, 'auth.err.invalid_token');
    expectError(await loginOptions('never-issued-challenge'), 400, 'auth.err.invalid_token');
    const totpOnly = await signedIn();
    expectError(await loginOptions((await passwordStep(totpOnly)).challenge), 409, 'two_factor.err.not_enabled');
  });

  it('steps up with a passkey, which removing a passkey needs', async () => {
    const u = await signedIn();
    const { authenticator, id } = await addPasskey(u);
    await verifiedAgo(u, TEN_MINUTES);
    expectError(await call('DELETE', `${PASSKEYS}/${id}`, { headers: u.auth }), 403, 'auth.err.step_up_required');
    const options = await call('POST', '/api/v1/auth/step-up/passkey-options', { headers: u.auth });
    expect(options.status).toBe(200);
    const wrong = authenticator.assert(options.body, { foreignKey: true });
    expectError(await call('POST', '/api/v1/auth/step-up', { headers: u.auth, body: { passkey: wrong } }), 400, 'auth.err.invalid_code');
    const next = await call('POST', '/api/v1/auth/step-up/passkey-options', { headers: u.auth });
    expect((await call('POST', '/api/v1/auth/step-up', { headers: u.auth, body: { passkey: authenticator.assert(next.body) } })).status).toBe(204);
    expect((await call('DELETE', `${PASSKEYS}/${id}`, { headers: u.auth })).status).toBe(204);
  });

  it('makes a passkey a second factor of its own: recovery codes back it up, and go with the last one', async () => {
    const u = await passwordOnly();
    // No second factor yet: removing one is refused before anything is looked up, and there are no options.
    expectError(await call('DELETE', `${PASSKEYS}/${randomUUID()}`, { headers: u.auth }), 403, 'auth.err.two_factor_required');
    expectError(await call('POST', '/api/v1/auth/step-up/passkey-options', { headers: u.auth }), 409, 'two_factor.err.not_enabled');
    // Registering counts as verifying: the session is stepped up at once.
    const { authenticator, id } = await addPasskey(u);
    expect((await call('POST', '/api/v1/me/2fa/recovery-codes', { headers: u.auth })).status).toBe(201);
    expect((await call('GET', '/api/v1/me', { headers: u.auth })).body.two_factor).toEqual({ totp: false, passkeys: 1, recovery_codes_left: 10 });
    const step = await passwordStep(u);
    expect(step.methods).toEqual(['recovery_code', 'passkey']);
    const options = (await loginOptions(step.challenge)).body;
    expect(
      (await call('POST', '/api/v1/auth/login/2fa', { body: { challenge: step.challenge, passkey: authenticator.assert(options) } })).status,
    ).toBe(200);

    expect((await call('DELETE', `${PASSKEYS}/${id}`, { headers: u.auth })).status).toBe(204);
    expect((await call('GET', '/api/v1/me', { headers: u.auth })).body.two_factor).toEqual({ totp: false, passkeys: 0, recovery_codes_left: 0 });
    const plain = await call('POST', '/api/v1/auth/login', { body: { email: u.email, password: u.password } });
    expect(plain.body).toMatchObject({ session_token: expect.any(String) });
  });
});
