import { randomBytes, scryptSync } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Db, migrate } from '@pl/db';
import { createLogger } from '@pl/telemetry';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { AccountRepository } from '../src/data/account.repository';
import { GATEWAY_SCHEMA, migrateGateway } from '../src/data/migrate';
import { UserRepository } from '../src/data/user.repository';
import { DEFAULT_SCRYPT, PasswordHasher } from '../src/domain/password-hash';
import { mailLinks } from '../src/domain/mail';

/**
 * The users migration on a database as it was before it: each merchant becomes an account with one user, its
 * owner, with the same email, password and session epoch, and the user takes the merchant's id, so a session
 * stored before (naming only the merchant) still names its user.
 */
const log = createLogger('users-migration-test', 'silent');
const MIGRATIONS = join(__dirname, '..', 'migrations');
const USERS_MIGRATION = '20261128100000000';
let database: TestDatabase;
let db: Db;
let before: string;

beforeAll(async () => {
  database = await createTestDatabase('users_migration');
  before = mkdtempSync(join(tmpdir(), 'gateway-migrations-'));
  for (const file of readdirSync(MIGRATIONS).filter((f) => f < USERS_MIGRATION)) copyFileSync(join(MIGRATIONS, file), join(before, file));
  await migrate({ url: database.url, schema: GATEWAY_SCHEMA, dir: before, log });
  db = new Db({ url: database.url, schema: GATEWAY_SCHEMA, log });
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
  rmSync(before, { recursive: true, force: true });
});

/** A hash as merchants' passwords were stored before the users table: `scrypt$salt$hash`, N=2^14, r=8, p=1. */
function legacyHash(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')}`;
}

it('makes each merchant an account owned by a user with its email, password and session epoch', async () => {
  const merchantId = '3f6c2a8e-1d4b-4c7e-9a2f-5b8d0e1c3a7f';
  await db.query(`INSERT INTO merchants (id, email, password_hash, email_confirmed, session_epoch) VALUES ($1, $2, $3, true, 2)`, [
    merchantId,
    'Old.Merchant@example.com',
    legacyHash('the old password'),
  ]);
  await db.query(`INSERT INTO merchant_sign_in_addresses (merchant_id, ip) VALUES ($1, '198.51.100.7')`, [merchantId]);
  await migrateGateway(database.url, log);

  const users = new UserRepository(db, async () => undefined, mailLinks('http://localhost:8080'), new PasswordHasher(DEFAULT_SCRYPT));
  const user = await users.findByLogin('old.merchant@example.com', 'the old password');
  expect(user).toEqual({ id: merchantId, email: 'Old.Merchant@example.com', emailConfirmed: true, language: 'ru', sessionEpoch: 2 });
  expect(await users.memberships(merchantId)).toEqual([{ merchantId, name: 'Old.Merchant@example.com', role: 'owner', createdAt: expect.any(Date) }]);
  expect(await users.sessionUser(merchantId, merchantId)).toMatchObject({ role: 'owner', sessionEpoch: 2 });
  // The address it signed in from is the user's now: signing in from it again is not new.
  expect(await users.rememberSignInAddress(merchantId, '198.51.100.7')).toBe(false);
  // The account still acts as confirmed for its API keys (its owner confirmed the email).
  expect(await new AccountRepository(db).findById(merchantId)).toMatchObject({ id: merchantId, emailConfirmed: true });
});
