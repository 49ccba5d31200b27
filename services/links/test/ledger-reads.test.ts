import { randomUUID } from 'node:crypto';
import { balance, balanceTransactionPage, subjects, type BalanceTransactionType, type Identity, type PaymentLink } from '@pl/contracts';
import { apiKey, cashier, platform, startLinksSystem, testKey, type LinksSystem } from './support/links-system';

jest.setTimeout(60_000);

/** links.balance.get and links.balance_transactions.list: the shop's balance and statement, per mode. */
describe('balance and statement reads', () => {
  let system: LinksSystem;
  const merchant = randomUUID();
  const stranger = randomUUID();
  let shopA: number;
  let shopB: number;
  let strangersShop: number;

  const getBalance = (identity: Identity, shopId: number) => system.bus.request(subjects.balanceGet, { shop_id: shopId }, identity);
  const list = (identity: Identity, filters: { shop_id?: number; type?: BalanceTransactionType; limit?: number; cursor?: string } = {}) =>
    system.bus.request(
      subjects.balanceTransactionsList,
      { shop_id: filters.shop_id ?? null, type: filters.type ?? null, limit: filters.limit ?? 20, cursor: filters.cursor ?? null },
      identity,
    );
  const paid = async (identity: Identity, shopId: number, amountKopecks: number): Promise<PaymentLink> => {
    const link = await system.createLink(identity, { shop_id: shopId, amount_kopecks: amountKopecks });
    return system.bus.request(subjects.linksSettle, { provider: 'sandbox', gateway_payment_id: `sbx_${link.id}`, status: 'paid' }, platform);
  };
  /** A refund's reserve as the refunds path posts it (its own transaction through ledger_post). */
  const refundPosting = (linkId: string, kopecks: number) =>
    system.linksDb.query(
      `SELECT ledger_post('refund', $1, $2, NULL, $3, 0, $3,
         jsonb_build_array(jsonb_build_object('account', 'available', 'amount', $3::bigint),
                           jsonb_build_object('account', 'refund_reserve', 'amount', -$3::bigint)))`,
      [linkId, randomUUID(), -kopecks],
    );

  beforeAll(async () => {
    system = await startLinksSystem('ledgerreads');
    // 1% paid by the merchant: 100.00 credits 99.00.
    shopA = await system.createShop(merchant, { fee_payer: 'merchant', crypto_bps: 100, sbp_bps: 100 });
    shopB = await system.createShop(merchant, { fee_payer: 'merchant', crypto_bps: 100, sbp_bps: 100 });
    strangersShop = await system.createShop(stranger);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('answers zero balances, never moved, for a shop with no money yet', async () => {
    const answer = await getBalance(apiKey(merchant), shopA);
    expect(balance.parse(answer)).toEqual(answer);
    expect(answer).toEqual({
      shop_id: shopA,
      currency: 'RUB',
      livemode: true,
      balance: '0.00',
      available: '0.00',
      pending: '0.00',
      refund_reserve: '0.00',
      updated_at: null,
    });
  });

  it("reads a shop's balance in the caller's mode only, with the time it last moved", async () => {
    const link = await paid(apiKey(merchant), shopA, 10000);
    await refundPosting(link.id, 2500);
    const live = await getBalance(apiKey(merchant), shopA);
    expect(live).toMatchObject({ livemode: true, available: '74.00', refund_reserve: '25.00', updated_at: expect.stringMatching(/\+03:00$/) });
    await expect(getBalance(testKey(merchant), shopA)).resolves.toMatchObject({ livemode: false, available: '0.00', updated_at: null });

    await paid(testKey(merchant), shopA, 20000);
    await expect(getBalance(testKey(merchant), shopA)).resolves.toMatchObject({ livemode: false, available: '198.00', refund_reserve: '0.00' });
    await expect(getBalance(apiKey(merchant), shopA)).resolves.toEqual(live);
  });

  it("refuses another merchant's shop (403) and an unknown one (404), for the balance and the statement filter", async () => {
    await expect(getBalance(apiKey(merchant), strangersShop)).rejects.toMatchObject({ kind: 'forbidden', code: 'common.err.forbidden' });
    await expect(getBalance(apiKey(merchant), 987654321)).rejects.toMatchObject({ kind: 'not_found', code: 'common.err.not_found' });
    await expect(list(apiKey(merchant), { shop_id: strangersShop })).rejects.toMatchObject({ code: 'common.err.forbidden' });
    await expect(list(apiKey(merchant), { shop_id: 987654321 })).rejects.toMatchObject({ code: 'common.err.not_found' });
    await expect(getBalance(cashier(merchant, shopB), shopA)).rejects.toMatchObject({ code: 'common.err.forbidden' });
    await expect(list(cashier(merchant, shopB), { shop_id: shopA })).rejects.toMatchObject({ code: 'common.err.forbidden' });
    await expect(getBalance(platform, shopA)).rejects.toMatchObject({ code: 'common.err.forbidden' });
  });

  it("lists the caller's statement newest first in its mode, by shop and type, a keyset page at a time", async () => {
    const m = randomUUID();
    const one = await system.createShop(m, { fee_payer: 'merchant', crypto_bps: 100, sbp_bps: 100 });
    const two = await system.createShop(m, { fee_payer: 'merchant', crypto_bps: 100, sbp_bps: 100 });
    const first = await paid(apiKey(m), one, 10000);
    await paid(apiKey(m), two, 30000);
    await refundPosting(first.id, 1000);
    await paid(testKey(m), one, 50000);

    const all = await list(apiKey(m));
    expect(balanceTransactionPage.parse(all)).toEqual(all);
    expect(all.has_more).toBe(false);
    expect(all.balance_transactions.map((t) => [t.shop_id, t.type, t.amount, t.fee, t.net, t.balance_after])).toEqual([
      [one, 'refund', '-10.00', '0.00', '-10.00', '89.00'],
      [two, 'payment', '300.00', '3.00', '297.00', '297.00'],
      [one, 'payment', '100.00', '1.00', '99.00', '99.00'],
    ]);
    expect(all.balance_transactions[2]).toMatchObject({ payment_link_id: first.id, refund_id: null });
    expect(all.balance_transactions[0]?.refund_id).toEqual(expect.any(String));

    const test = await list(testKey(m));
    expect(test.balance_transactions.map((t) => [t.shop_id, t.net])).toEqual([[one, '495.00']]);
    await expect(list(apiKey(m), { shop_id: one })).resolves.toMatchObject({ balance_transactions: [{ type: 'refund' }, { type: 'payment' }] });
    await expect(list(apiKey(m), { type: 'payment' })).resolves.toMatchObject({ balance_transactions: [{ shop_id: two }, { shop_id: one }] });
    await expect(list(cashier(m, two))).resolves.toMatchObject({ balance_transactions: [{ shop_id: two }] });
    // Another merchant sees none of it.
    await expect(list(apiKey(stranger))).resolves.toEqual({ balance_transactions: [], has_more: false, next_cursor: null });

    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(apiKey(m), { limit: 1, ...(cursor === undefined ? {} : { cursor }) });
      ids.push(...page.balance_transactions.map((t) => t.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    expect(ids).toEqual(all.balance_transactions.map((t) => t.id));
    await expect(list(apiKey(m), { cursor: 'not-a-cursor' })).rejects.toMatchObject({ kind: 'validation' });
  });
});
