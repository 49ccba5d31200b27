import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Db } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { LinkRepository, LINKS_SCHEMA, migrateLinks, sampleNewLink } from '@pl/links/testing';
import { renderOutcome, runCli } from '../src/cli';
import type { CliIo } from '../src/secrets';

const log = pino({ level: 'silent' });
const io: CliIo = { readStdin: () => Promise.resolve(''), warn: () => undefined };

/** `ledger:verify` run in-process as main.ts runs it: the counts on stdout, a non-zero exit for a damaged ledger. */
describe('admin CLI ledger:verify', () => {
  let database: TestDatabase;
  let linksDb: Db;

  const verify = async () => {
    const out = renderOutcome(await runCli(['ledger:verify'], { DATABASE_URL: database.url }, io));
    return { exitCode: out.exitCode, stderr: out.stderr, counts: JSON.parse(out.stdout) as unknown };
  };
  const paidLink = async (livemode: boolean) => {
    const links = new LinkRepository(linksDb);
    const link = await links.insert(sampleNewLink({ livemode }));
    const settlement = { to: 'paid' as const, failureReason: null, gatewayProvider: 'sandbox', gatewayPaymentId: `sbx_${link.id}`, at: new Date() };
    if (!(await links.settle(link, settlement, null))) throw new Error('the link did not settle');
    return link;
  };
  /** As the superuser, with every trigger off (replica role): what the application could never write. */
  const asSuperuserWithoutTriggers = (sql: string) =>
    linksDb.transaction(async (client) => {
      await client.query(`SET LOCAL session_replication_role = replica`);
      await client.query(sql);
    });

  beforeAll(async () => {
    database = await createTestDatabase('ledgerverify');
    await migrateLinks(database.url, log);
    linksDb = new Db({ url: database.url, schema: LINKS_SCHEMA, log });
  });

  afterAll(async () => {
    await linksDb?.close();
    await database?.drop();
  });

  it('passes an empty ledger and one with payments of both modes', async () => {
    await expect(verify()).resolves.toEqual({ exitCode: 0, stderr: '', counts: { transactions: 0, unbalanced: 0, balances_mismatched: 0 } });
    await paidLink(true);
    await paidLink(false);
    await expect(verify()).resolves.toEqual({ exitCode: 0, stderr: '', counts: { transactions: 2, unbalanced: 0, balances_mismatched: 0 } });
  });

  it("exits 1 with the counts when a shop's stored balance no longer equals its entries", async () => {
    await paidLink(true);
    // The balance column is not append-only (ledger_post moves it): only its CHECK and this verification guard it.
    await linksDb.query(`UPDATE ledger_accounts SET balance = balance + 1 WHERE id = (SELECT min(id) FROM ledger_accounts WHERE kind = 'available')`);
    await expect(verify()).resolves.toEqual({ exitCode: 1, stderr: '', counts: { transactions: 3, unbalanced: 0, balances_mismatched: 1 } });
    await linksDb.query(`UPDATE ledger_accounts SET balance = balance - 1 WHERE id = (SELECT min(id) FROM ledger_accounts WHERE kind = 'available')`);
    await expect(verify()).resolves.toMatchObject({ exitCode: 0 });
  });

  it('exits 1 when a transaction is unbalanced or has lost its entries, as only a superuser without triggers can make one', async () => {
    const link = await paidLink(true);
    const tx = `(SELECT id FROM ledger_transactions WHERE payment_link_id = '${link.id}')`;
    await asSuperuserWithoutTriggers(
      `INSERT INTO ledger_entries (transaction_id, account_id, amount) SELECT ${tx}, min(id), 5 FROM ledger_accounts WHERE kind = 'revenue'`,
    );
    await asSuperuserWithoutTriggers(
      `INSERT INTO ledger_transactions (id, type, livemode, merchant_id, shop_id, payment_link_id, amount, fee, net, balance_after)
       VALUES ('${randomUUID()}', 'refund', true, '${link.merchantId}', ${link.shopId}, '${link.id}', -1, 0, -1, 0)`,
    );
    const run = await verify();
    expect(run).toEqual({ exitCode: 1, stderr: '', counts: { transactions: 5, unbalanced: 2, balances_mismatched: 0 } });
  });

  it('refuses flags it does not take', async () => {
    const out = renderOutcome(await runCli(['ledger:verify', '--fix'], { DATABASE_URL: database.url }, io));
    expect(out.exitCode).toBe(2);
  });
});
