import { Db } from '@pl/db';
import { createLogger } from '@pl/telemetry';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { enqueueMail } from '@pl/mail';
import { AccountRepository } from '../src/data/account.repository';
import { migrateGateway } from '../src/data/migrate';
import { UserRepository } from '../src/data/user.repository';
import { mailLinks } from '../src/domain/mail';
import { LEGACY_SCRYPT, PasswordHasher } from '../src/domain/password-hash';

/**
 * A credential change of the gateway's own and its audit event are one transaction: when the event cannot be
 * written, the change does not happen either. The event is made unwritable with an address Postgres refuses
 * (text with a NUL character), which nothing else in these statements uses.
 */
const log = createLogger('audit-atomicity-test', 'silent');
const UNWRITABLE_IP = 'bad\u0000address';
let database: TestDatabase;
let db: Db;
let accounts: AccountRepository;
let users: UserRepository;

beforeAll(async () => {
  database = await createTestDatabase('audit_atomicity');
  await migrateGateway(database.url, log);
  db = new Db({ url: database.url, schema: 'gateway', log });
  accounts = new AccountRepository(db, new PasswordHasher(LEGACY_SCRYPT));
  users = new UserRepository(db, enqueueMail, mailLinks('http://localhost:8080'), new PasswordHasher(LEGACY_SCRYPT));
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

const newAccount = async (password = 'first-password-1') =>
  accounts.createMerchant({ email: `a-${Date.now()}-${Math.random()}@example.com`, password, emailConfirmed: true });
const newMerchant = async (password = 'first-password-1') => (await newAccount(password)).merchant.id;
const events = async (merchantId: string) =>
  (await db.query<{ type: string }>('SELECT type FROM audit_events WHERE merchant_id = $1 ORDER BY seq', [merchantId])).map((r) => r.type);

it('creates no key when its audit event cannot be written, and one key with one event when it can', async () => {
  const merchantId = await newMerchant();
  const before = await accounts.listApiKeys(merchantId);
  await expect(accounts.createApiKey(merchantId, 'x', 'live', 10, UNWRITABLE_IP)).rejects.toThrow();
  expect(await accounts.listApiKeys(merchantId)).toHaveLength(before.length);
  await accounts.createApiKey(merchantId, 'x', 'live', 10, '203.0.113.9');
  expect(await accounts.listApiKeys(merchantId)).toHaveLength(before.length + 1);
  expect(await events(merchantId)).toEqual(['api_key.created']);
});

it('leaves a key active when the audit event of its revocation or reissue cannot be written', async () => {
  const merchantId = await newMerchant();
  const key = (await accounts.listApiKeys(merchantId)).find((k) => k.mode === 'live');
  await expect(accounts.revokeApiKey(key!.id, UNWRITABLE_IP)).rejects.toThrow();
  await expect(accounts.reissueApiKey(key!.id, 0, 10, UNWRITABLE_IP)).rejects.toThrow();
  const after = await accounts.listApiKeys(merchantId);
  expect(after.map((k) => ({ id: k.id, mode: k.mode, revokedAt: k.revokedAt, expiresAt: k.expiresAt }))).toEqual([
    { id: expect.any(String), mode: 'test', revokedAt: null, expiresAt: null },
    { id: key!.id, mode: 'live', revokedAt: null, expiresAt: null },
  ]);
  expect(await events(merchantId)).toEqual([]);
});

const mails = async (to: string) =>
  (await db.query<{ template: string }>('SELECT template FROM mail_queue WHERE recipient = $1', [to])).map((r) => r.template);

it('keeps the old password, and sends no mail, when the audit event of the change cannot be written', async () => {
  const { merchant, userId } = await newAccount('first-password-1');
  await expect(users.changePassword(userId, merchant.id, 'first-password-1', 'second-password-2', UNWRITABLE_IP)).rejects.toThrow();
  expect(await users.findByLogin(merchant.email, 'first-password-1')).not.toBeNull();
  expect(await mails(merchant.email)).toEqual([]);
  expect(await users.changePassword(userId, merchant.id, 'first-password-1', 'second-password-2', '203.0.113.9')).toEqual({
    sessionEpoch: expect.any(Number),
  });
  expect(await events(merchant.id)).toEqual(['account.password_changed']);
  expect(await mails(merchant.email)).toEqual(['password_changed']);
});
