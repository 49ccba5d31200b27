import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Db } from '@pl/db';
import { AccountRepository, GATEWAY_SCHEMA, migrateGateway } from '@pl/gateway';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { LinkRepository, LINKS_SCHEMA, migrateLinks, sampleNewLink } from '@pl/links/testing';
import { renderOutcome, runCli } from '../src/cli';
import type { CliIo } from '../src/secrets';

const log = pino({ level: 'silent' });
const io: CliIo = { readStdin: () => Promise.resolve(''), warn: () => undefined };

/** `payout:hold`, `payout:release` and `payout:list` run in-process as main.ts runs them (docs/payouts.md, "Operators"). */
describe('admin CLI payouts', () => {
  let database: TestDatabase;
  let gatewayDb: Db;
  let linksDb: Db;

  const run = async (...args: string[]) => {
    const out = renderOutcome(await runCli(args, { DATABASE_URL: database.url }, io));
    return { exitCode: out.exitCode, body: JSON.parse(out.stdout || out.stderr) as Record<string, unknown> };
  };

  beforeAll(async () => {
    database = await createTestDatabase('adminpayouts');
    await migrateGateway(database.url, log);
    await migrateLinks(database.url, log);
    gatewayDb = new Db({ url: database.url, schema: GATEWAY_SCHEMA, log });
    linksDb = new Db({ url: database.url, schema: LINKS_SCHEMA, log });
  });

  afterAll(async () => {
    await gatewayDb?.close();
    await linksDb?.close();
    await database?.drop();
  });

  it("holds and releases an account's payouts, and refuses an unknown account", async () => {
    const { merchant } = await new AccountRepository(gatewayDb).createMerchant({
      email: `ops-${randomUUID()}@example.com`,
      password: 'a long enough password 1',
      emailConfirmed: true,
    });
    await expect(run('payout:hold', '--merchant', merchant.id)).resolves.toEqual({
      exitCode: 0,
      body: { merchant_id: merchant.id, payouts_on_hold: true },
    });
    const held = await gatewayDb.query<{ payouts_on_hold: boolean }>('SELECT payouts_on_hold FROM merchants WHERE id = $1', [merchant.id]);
    expect(held).toEqual([{ payouts_on_hold: true }]);
    await expect(run('payout:release', '--merchant', merchant.id)).resolves.toMatchObject({ exitCode: 0, body: { payouts_on_hold: false } });
    const unknown = await run('payout:hold', '--merchant', randomUUID());
    expect(unknown.exitCode).not.toBe(0);
    expect(unknown.body).toMatchObject({ error: { code: 'common.err.not_found' } });
  });

  it('lists payouts newest first with their account and rail', async () => {
    const links = new LinkRepository(linksDb);
    const link = await links.insert(sampleNewLink());
    const settlement = { to: 'paid' as const, failureReason: null, gatewayProvider: 'sandbox', gatewayPaymentId: `sbx_${link.id}`, at: new Date() };
    if (!(await links.settle(link, settlement, null))) throw new Error('the link did not settle');
    const id = randomUUID();
    await linksDb.query(
      `SELECT payout_create($1, $2, $3, true, 10000, 0, 'approved', NULL, $4, 'bank_account', '•••• 1234', '{}'::jsonb, 'bank', $5, now(), 0, 100000000)`,
      [id, link.merchantId, link.shopId, randomUUID(), randomUUID()],
    );
    const listed = await run('payout:list', '--merchant', link.merchantId);
    expect(listed).toMatchObject({
      exitCode: 0,
      body: { payouts: [{ id, merchant_id: link.merchantId, rail: 'bank', amount: '100.00', status: 'approved' }] },
    });
    await expect(run('payout:list', '--status', 'paid', '--merchant', link.merchantId)).resolves.toEqual({ exitCode: 0, body: { payouts: [] } });
  });
});
