import { randomUUID } from 'node:crypto';
import { subjects, type PaymentLink } from '@pl/contracts';
import { LedgerRepository, verifyLedger } from '../src/data/ledger.repository';
import { LinkRepository } from '../src/data/link.repository';
import { LINKS_OWN_MODE } from '../src/domain/ports';
import { apiKey, platform, startLinksSystem, testKey, type LinksSystem } from './support/links-system';

jest.setTimeout(60_000);

interface EntryRow {
  kind: string;
  shop_id: string | null;
  provider: string | null;
  livemode: boolean;
  amount: string;
}

/** Postings of links.ledger_post and the database rules that keep the ledger whole whatever the code does. */
describe('ledger postings', () => {
  let system: LinksSystem;
  const merchant = randomUUID();
  let shopId: number;

  const settle = (link: PaymentLink, status: 'paid' | 'failed' = 'paid'): Promise<PaymentLink> =>
    system.bus.request(subjects.linksSettle, { provider: 'sandbox', gateway_payment_id: `sbx_${link.id}`, status }, platform);
  const transactionsOf = (linkId: string) =>
    system.linksDb.query<{
      id: string;
      type: string;
      amount: string;
      fee: string;
      net: string;
      balance_after: string;
      livemode: boolean;
      xmin: string;
    }>('SELECT id, type, amount, fee, net, balance_after, livemode, xmin::text FROM ledger_transactions WHERE payment_link_id = $1', [linkId]);
  const entriesOf = (transactionId: string) =>
    system.linksDb.query<EntryRow>(
      `SELECT a.kind, a.shop_id, a.provider, a.livemode, e.amount FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
        WHERE e.transaction_id = $1 ORDER BY a.kind`,
      [transactionId],
    );
  /** A posting of the link's shop in its own transaction, as the refund paths make them. */
  const post = (linkId: string, type: string, entries: object[]) =>
    system.linksDb.query<{ id: string }>(`SELECT ledger_post($1, $2, NULL, NULL, $3, 0, $3, $4::jsonb) AS id`, [
      type,
      linkId,
      -1,
      JSON.stringify(entries),
    ]);
  const sqlState = (e: unknown): unknown => (e as { code?: string }).code;

  beforeAll(async () => {
    system = await startLinksSystem('ledgerpost');
    // 1% on 1500.00 paid by the merchant: the shop is credited 1485.00, the platform keeps 15.00.
    shopId = await system.createShop(merchant, { crypto_bps: 100, sbp_bps: 100, fee_payer: 'merchant' });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('posts a paid link as one balanced payment transaction, committed with the settle itself', async () => {
    const link = await system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: 150000 });
    await settle(link);

    const [tx, ...more] = await transactionsOf(link.id);
    expect(more).toEqual([]);
    expect(tx).toMatchObject({ type: 'payment', amount: '150000', fee: '1500', net: '148500', balance_after: '148500', livemode: true });
    // The same database transaction wrote the link's paid row and the ledger's: no paid link without its credit.
    const [linkRow] = await system.linksDb.query<{ xmin: string }>('SELECT xmin::text FROM payment_links WHERE id = $1', [link.id]);
    expect(tx?.xmin).toBe(linkRow?.xmin);
    await expect(entriesOf(tx?.id ?? '')).resolves.toEqual([
      { kind: 'available', shop_id: String(shopId), provider: null, livemode: true, amount: '148500' },
      { kind: 'clearing', shop_id: null, provider: 'sandbox', livemode: true, amount: '-150000' },
      { kind: 'revenue', shop_id: null, provider: null, livemode: true, amount: '1500' },
    ]);
    await expect(verifyLedger(system.linksDb)).resolves.toMatchObject({ unbalanced: 0, balances_mismatched: 0 });
  });

  it('posts nothing for a settle that does not win: a repeated callback, a failed payment, a stale read', async () => {
    const link = await system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: 20000 });
    await settle(link);
    await expect(settle(link)).rejects.toThrow('not pending');
    await expect(transactionsOf(link.id)).resolves.toHaveLength(1);

    const failed = await system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: 20000 });
    await settle(failed, 'failed');
    await expect(transactionsOf(failed.id)).resolves.toEqual([]);

    // Read, then re-priced by a selection: the settle of the stale read moves nothing and credits nothing.
    const stale = await system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: 20000 });
    const links = new LinkRepository(system.linksDb);
    const read = await links.findForPayment('sandbox', `sbx_${stale.id}`, stale.id, LINKS_OWN_MODE);
    if (!read) throw new Error('the link was not found for its payment');
    await system.bus.request(subjects.linksSelect, { id: stale.id, method: 'crypto', network: 'USDT-TON' }, platform);
    const settlement = { to: 'paid' as const, failureReason: null, gatewayProvider: 'sandbox', gatewayPaymentId: `sbx_${stale.id}`, at: new Date() };
    await expect(links.settle(read, settlement, null)).resolves.toBeNull();
    await expect(transactionsOf(stale.id)).resolves.toEqual([]);
  });

  it("credits a test link's payment to the shop's test accounts only", async () => {
    const link = await system.createLink(testKey(merchant), { shop_id: shopId, amount_kopecks: 10000 });
    await settle(link);
    const [tx] = await transactionsOf(link.id);
    expect(tx).toMatchObject({ livemode: false, balance_after: '9900' });
    const entries = await entriesOf(tx?.id ?? '');
    expect(entries.map((e) => e.livemode)).toEqual([false, false, false]);
    const ledger = new LedgerRepository(system.linksDb);
    await expect(ledger.balance(shopId, 'test')).resolves.toMatchObject({ available: 9900, refundReserve: 0 });
  });

  it('refuses at commit a transaction whose entries do not sum to zero, or that has only one entry', async () => {
    const link = await system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: 10000 });
    await settle(link);
    const before = await transactionsOf(link.id);
    const unbalanced = post(link.id, 'refund', [
      { account: 'available', amount: -100 },
      { account: 'refund_reserve', amount: 99 },
    ]);
    await expect(unbalanced).rejects.toMatchObject({ code: '23514', constraint: 'ledger_transaction_balanced' });
    await expect(post(link.id, 'refund', [{ account: 'available', amount: -100 }])).rejects.toMatchObject({ code: '23514' });
    // Nor can a transaction row be written with no entries at all, bypassing the function.
    const bare = system.linksDb.query(
      `INSERT INTO ledger_transactions (id, type, livemode, merchant_id, shop_id, payment_link_id, amount, fee, net, balance_after)
       VALUES ($1, 'refund', true, $2, $3, $4, -1, 0, -1, 0)`,
      [randomUUID(), merchant, shopId, link.id],
    );
    await expect(bare).rejects.toMatchObject({ code: '23514' });
    await expect(transactionsOf(link.id)).resolves.toEqual(before);
    await expect(verifyLedger(system.linksDb)).resolves.toMatchObject({ unbalanced: 0, balances_mismatched: 0 });
  });

  it('refuses any UPDATE, DELETE or TRUNCATE of entries and transactions', async () => {
    const link = await system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: 10000 });
    await settle(link);
    const [tx] = await transactionsOf(link.id);
    const refused = (sql: string) => system.linksDb.query(sql, sql.includes('$1') ? [tx?.id] : []).catch(sqlState);
    await expect(refused('UPDATE ledger_entries SET amount = amount * 2 WHERE transaction_id = $1')).resolves.toBe('42501');
    await expect(refused('DELETE FROM ledger_entries WHERE transaction_id = $1')).resolves.toBe('42501');
    await expect(refused('TRUNCATE ledger_entries CASCADE')).resolves.toBe('42501');
    await expect(refused('UPDATE ledger_transactions SET fee = 0 WHERE id = $1')).resolves.toBe('42501');
    await expect(refused('DELETE FROM ledger_transactions WHERE id = $1')).resolves.toBe('42501');
    await expect(refused('TRUNCATE ledger_transactions CASCADE')).resolves.toBe('42501');
    await expect(entriesOf(tx?.id ?? '')).resolves.toHaveLength(3);
  });

  it("never lets a shop's balance go below zero, and serialises concurrent postings on it", async () => {
    const poorShop = await system.createShop(merchant, { fee_payer: 'merchant' });
    const link = await system.createLink(apiKey(merchant), { shop_id: poorShop, amount_kopecks: 10000 });
    await settle(link);
    const reserve = (amount: number) =>
      post(link.id, 'refund', [
        { account: 'available', amount: -amount },
        { account: 'refund_reserve', amount },
      ]);
    // 99.00 available: eleven concurrent 10.00 reserves, and only nine fit.
    const results = await Promise.allSettled(Array.from({ length: 11 }, () => reserve(1000)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(9);
    for (const r of results)
      if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: '23514', constraint: 'ledger_accounts_balance_check' });
    const ledger = new LedgerRepository(system.linksDb);
    await expect(ledger.balance(poorShop, 'live')).resolves.toMatchObject({ available: 900, refundReserve: 9000 });
    // Each statement row's balance_after follows the one before it, newest first.
    const rows = await ledger.statement({ merchantId: merchant, mode: 'live', shopId: poorShop, type: null, after: null, limit: 100 });
    expect(rows.map((r) => r.balanceAfter)).toEqual([900, 1900, 2900, 3900, 4900, 5900, 6900, 7900, 8900, 9900]);
    await expect(verifyLedger(system.linksDb)).resolves.toMatchObject({ unbalanced: 0, balances_mismatched: 0 });
  });
});
