import { randomBytes, scryptSync } from 'node:crypto';
import { expectError } from '../support/http';
import { startSystem, type TestSystem } from '../support/system';

/**
 * Password hashes at the gateway's production default (OWASP's minimum, N=2^14, r=8, p=5), end to end: the rest of
 * the suite hashes with cheaper parameters (tests/support/system.ts, TEST_PASSWORD_SCRYPT), this file with what runs
 * in production. Hashes carry their parameters; one stored before they did is raised at its user's next sign-in.
 */
let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem({ productionPasswordHash: true });
}, 60_000);
afterAll(() => sys?.stop());

const newEmail = (): string => `ph-${randomBytes(6).toString('hex')}@example.com`;
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A hash as merchants' passwords were stored before parameters were written in them: `scrypt$salt$hash`, N=2^14, r=8, p=1. */
function legacyHash(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')}`;
}

const storedHash = async (email: string): Promise<string> =>
  (await sys.sql<{ password_hash: string }>('SELECT password_hash FROM gateway.users WHERE lower(email) = lower($1)', [email]))[0]!.password_hash;

const signIn = (email: string, password: string) => sys.http.post('/api/v1/auth/login', { email, password });

/** A user whose stored hash predates parameters in hashes (the migration of ADR 20 carried such hashes over). */
async function legacyUser(): Promise<{ email: string; password: string; hash: string }> {
  const m = await sys.merchant();
  const hash = legacyHash(m.password);
  await sys.sql('UPDATE gateway.users SET password_hash = $2 WHERE lower(email) = lower($1)', [m.email, hash]);
  return { email: m.email, password: m.password, hash };
}

it('hashes a signed-up password with the production default, the parameters written in the hash, and signs in with it', async () => {
  const email = newEmail();
  const password = 'a passphrase of my own';
  expect((await sys.http.post('/api/v1/auth/signup', { email, password, account_name: 'Tea House', language: 'en' })).status).toBe(202);
  await sys.mail.waitForMailTo(email);
  expect(await storedHash(email)).toMatch(/^scrypt\$16384\$8\$5\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
  const res = await signIn(email, password);
  expect(res.status).toBe(200);
  expect((await sys.http.get('/api/v1/me', { headers: bearer(res.body.session_token as string) })).body).toMatchObject({ email });
  expectError(await signIn(email, 'a passphrase of my owN'), 401, 'common.err.unauthorized');
});

it('raises a hash stored without parameters to the current ones at a right sign-in, keeping its sessions', async () => {
  const user = await legacyUser();
  // A wrong password changes nothing.
  expectError(await signIn(user.email, `${user.password}x`), 401, 'common.err.unauthorized');
  expect(await storedHash(user.email)).toBe(user.hash);

  const first = await signIn(user.email, user.password);
  expect(first.status).toBe(200);
  const raised = await storedHash(user.email);
  expect(raised).toMatch(/^scrypt\$16384\$8\$5\$/);
  // Same password, so the session epoch stays: the session just opened still works, and the raised hash signs in.
  expect((await sys.http.get('/api/v1/me', { headers: bearer(first.body.session_token as string) })).status).toBe(200);
  expect((await signIn(user.email, user.password)).status).toBe(200);
  // Current parameters are not hashed again.
  expect(await storedHash(user.email)).toBe(raised);
});

it('signs in with the old hash when storing the raised one fails', async () => {
  const user = await legacyUser();
  // Postgres refuses the re-hash's update (as a read-only replica or a lock time-out would) for this user alone.
  await sys.sql(`CREATE FUNCTION gateway.refuse_rehash() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'password hashes are frozen for this test'; END $$`);
  await sys.sql(`CREATE TRIGGER refuse_rehash BEFORE UPDATE OF password_hash ON gateway.users FOR EACH ROW
    WHEN (lower(OLD.email) = lower('${user.email}')) EXECUTE FUNCTION gateway.refuse_rehash()`);
  try {
    const res = await signIn(user.email, user.password);
    expect(res.status).toBe(200);
    expect(typeof res.body.session_token).toBe('string');
    expect(await storedHash(user.email)).toBe(user.hash);
  } finally {
    await sys.sql('DROP TRIGGER refuse_rehash ON gateway.users');
    await sys.sql('DROP FUNCTION gateway.refuse_rehash()');
  }
  // Once the update goes through again, the next sign-in raises it.
  expect((await signIn(user.email, user.password)).status).toBe(200);
  expect(await storedHash(user.email)).toMatch(/^scrypt\$16384\$8\$5\$/);
});
