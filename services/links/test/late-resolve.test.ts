import { randomUUID } from 'node:crypto';
import { subjects, type CryptoNetwork, type Identity, type PaymentLink, type Refund } from '@pl/contracts';
import { LatePaymentRepository } from '../src/data/unresolved-payment.repository';
import { resolveLatePayment, type UnresolvedResolveDeps } from '../src/domain/unresolved-payment';
import { RefundRepository } from '../src/data/refund.repository';
import { parseExchangeRates, ProviderRegistry, SandboxProvider } from '@pl/providers';
import { apiKey, platform, startLinksSystem, testKey, type LinksSystem } from './support/links-system';
import { eventTypesOf, outboxEventsOf } from './support/outbox-events';

/** A settled late payment's link's events, sorted: its close, the record's creation, and the settle's two. */
const SETTLED_LATE_EVENTS = ['payment.late_settled', 'payment_link.canceled', 'unresolved_payment.created', 'unresolved_payment.settled'];

describe('payment:late:resolve: an operator resolves a late payment once', () => {
  let system: LinksSystem;
  let deps: UnresolvedResolveDeps;
  const merchant = randomUUID();
  let shopId: number;

  const settle = (linkId: string): Promise<PaymentLink> =>
    system.bus.request(subjects.linksSettle, { provider: 'sandbox', gateway_payment_id: `sbx_${linkId}`, status: 'paid' }, platform);

  /** A link (SBP selected, or a crypto network) canceled, then paid: its late payment's id, and the link as it stands. */
  const latePayment = async (
    identity: Identity = apiKey(merchant),
    network: CryptoNetwork | null = null,
  ): Promise<{ lateId: string; link: PaymentLink }> => {
    const created = await system.createLink(identity, { shop_id: shopId, amount_kopecks: 150000, order_id: 'order-late' });
    await system.bus.request(
      subjects.linksSelect,
      network === null ? { id: created.id, method: 'sbp', network: null } : { id: created.id, method: 'crypto', network },
      platform,
    );
    const link: PaymentLink = await system.bus.request(subjects.linksCancel, { id: created.id }, identity);
    await expect(settle(link.id)).rejects.toMatchObject({ code: 'payment_link.err.not_pending' });
    const [row] = await system.linksDb.query<{ id: string }>('SELECT id FROM unresolved_payments WHERE link_id = $1', [link.id]);
    if (!row) throw new Error('no late payment was recorded');
    return { lateId: row.id, link };
  };
  const available = async (livemode: boolean): Promise<number> => {
    const [row] = await system.linksDb.query<{ balance: string }>(
      "SELECT balance FROM ledger_accounts WHERE shop_id = $1 AND livemode = $2 AND kind = 'available'",
      [shopId, livemode],
    );
    return Number(row?.balance ?? 0);
  };
  const ledgerOf = (lateId: string) =>
    system.linksDb.query<{ type: string; amount: string; fee: string; net: string; livemode: boolean; balance_after: string | null }>(
      'SELECT type, amount, fee, net, livemode, balance_after FROM ledger_transactions WHERE late_payment_id = $1 ORDER BY created_at',
      [lateId],
    );

  beforeAll(async () => {
    system = await startLinksSystem('lateresolve');
    // The client pays the fee: the buyer paid 1545.00 (SBP at 300 bps), the shop is credited 1500.00, the platform earns 45.00.
    shopId = await system.createShop(merchant, { crypto_bps: 100, sbp_bps: 300, fee_payer: 'client' });
    const sandbox = new SandboxProvider({ rates: parseExchangeRates('USDT=95,BTC=6500000,ETH=250000,TON=450'), callbackSecret: 's'.repeat(32) });
    deps = {
      unresolvedPayments: new LatePaymentRepository(system.linksDb),
      refunds: new RefundRepository(system.linksDb),
      providers: new ProviderRegistry(sandbox, { sbp: sandbox, crypto: sandbox }),
      providerTimeoutMs: 1000,
      newId: randomUUID,
      eventsTopic: system.topic,
      warn: () => undefined,
    };
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('settle credits the shop as a paid link (ledger type late_payment) and writes payment.late_settled, not payment.succeeded', async () => {
    const { lateId, link } = await latePayment();
    const before = await available(true);
    const resolved = await resolveLatePayment(deps, { id: lateId, action: 'settle', destination: null });
    expect(resolved.late).toMatchObject({ id: lateId, resolution: 'settled', payerAmount: 154500, merchantCredit: 150000, platformRevenue: 4500 });
    expect(await available(true)).toBe(before + 150000);
    expect(await ledgerOf(lateId)).toEqual([
      { type: 'late_payment', amount: '154500', fee: '4500', net: '150000', livemode: true, balance_after: String(before + 150000) },
    ]);
    expect(resolved.ledgerTransactionId).toEqual(expect.any(String));
    // The link stays as it was: no payment.succeeded for a closed link.
    // The resolve's two events share its transaction (and its created_at): their order is the ids'.
    expect((await eventTypesOf(system.linksDb, link.id)).sort()).toEqual(SETTLED_LATE_EVENTS);
    const settled = (await outboxEventsOf(system.linksDb, link.id)).find((e) => e.event.event === 'payment.late_settled');
    const settledAt = (
      await system.linksDb.query<{ at: string }>(
        `SELECT to_char(resolved_at AT TIME ZONE 'Europe/Moscow', 'YYYY-MM-DD"T"HH24:MI:SS"+03:00"') AS at FROM unresolved_payments WHERE id = $1`,
        [lateId],
      )
    )[0]?.at;
    expect(settled?.headers['event-type']).toBe('payment.late_settled');
    expect(settled?.event).toEqual({
      event_id: settled?.id,
      event: 'payment.late_settled',
      occurred_at: settledAt,
      merchant_id: merchant,
      livemode: true,
      data: {
        payment_link_id: link.id,
        id: link.id,
        shop_id: shopId,
        order_id: 'order-late',
        amount: '1500.00',
        merchant_credit: '1500.00',
        status: 'canceled',
        late_payment_id: lateId,
        gateway_payment_id: `sbx_${link.id}`,
        settled_at: settledAt,
      },
    });
    await expect(system.bus.request(subjects.linksGet, { id: link.id }, apiKey(merchant))).resolves.toMatchObject({ status: 'canceled' });
  });

  it('answers 409 late_payment.err.already_resolved to a second resolve, whichever action, and writes nothing', async () => {
    const { lateId, link } = await latePayment();
    await resolveLatePayment(deps, { id: lateId, action: 'settle', destination: null });
    const after = await available(true);
    for (const again of [
      { id: lateId, action: 'settle', destination: null },
      { id: lateId, action: 'refund', destination: null },
    ] as const) {
      await expect(resolveLatePayment(deps, again)).rejects.toMatchObject({ kind: 'conflict', code: 'late_payment.err.already_resolved' });
    }
    expect(await available(true)).toBe(after);
    expect(await ledgerOf(lateId)).toHaveLength(1);
    // The resolve's two events share its transaction (and its created_at): their order is the ids'.
    expect((await eventTypesOf(system.linksDb, link.id)).sort()).toEqual(SETTLED_LATE_EVENTS);
  });

  it('resolves once under concurrent resolves: one wins, the others are 409, one posting and one event', async () => {
    const { lateId, link } = await latePayment();
    const before = await available(true);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => resolveLatePayment(deps, { id: lateId, action: i % 2 ? 'refund' : 'settle', destination: null })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'late_payment.err.already_resolved' });
    const won = results.find((r) => r.status === 'fulfilled')?.value;
    const refunds = await system.linksDb.query('SELECT id FROM refunds WHERE late_payment_id = $1', [lateId]);
    if (won?.late.resolution === 'settled') {
      expect({ ledger: (await ledgerOf(lateId)).length, refunds: refunds.length, credited: (await available(true)) - before }).toEqual({
        ledger: 1,
        refunds: 0,
        credited: 150000,
      });
      // The resolve's two events share its transaction (and its created_at): their order is the ids'.
      expect((await eventTypesOf(system.linksDb, link.id)).sort()).toEqual(SETTLED_LATE_EVENTS);
    } else {
      expect({ ledger: (await ledgerOf(lateId)).length, refunds: refunds.length, credited: (await available(true)) - before }).toEqual({
        ledger: 1,
        refunds: 1,
        credited: 0,
      });
    }
  });

  it("refund creates a pending refund of the whole payment to the buyer, accepted by the sandbox, and leaves the shop's balance alone", async () => {
    const { lateId, link } = await latePayment();
    const before = await available(true);
    const resolved = await resolveLatePayment(deps, { id: lateId, action: 'refund', destination: null });
    expect(resolved.late.resolution).toBe('refunded');
    // Clearing to clearing: the buyer's payment in and the refund out, two entries of one account summing to zero.
    const entries = await system.linksDb.query<{ type: string; kind: string; amount: string }>(
      `SELECT t.type, a.kind, e.amount FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
         JOIN ledger_accounts a ON a.id = e.account_id WHERE t.id = $1 ORDER BY e.id`,
      [resolved.ledgerTransactionId],
    );
    expect(entries).toEqual([
      { type: 'late_refund', kind: 'clearing', amount: '-154500' },
      { type: 'late_refund', kind: 'clearing', amount: '154500' },
    ]);
    const refunds = await system.linksDb.query('SELECT * FROM refunds WHERE late_payment_id = $1', [lateId]);
    expect(refunds).toEqual([
      expect.objectContaining({
        id: resolved.refundId,
        payment_link_id: link.id,
        merchant_id: merchant,
        shop_id: String(shopId),
        livemode: true,
        amount: '154500',
        status: 'pending',
        destination: null,
        provider: 'sandbox',
        gateway_refund_id: `sbr_${resolved.refundId ?? ''}`,
      }),
    ]);
    expect(await available(true)).toBe(before);
    expect(await ledgerOf(lateId)).toEqual([{ type: 'late_refund', amount: '0', fee: '0', net: '0', livemode: true, balance_after: null }]);
    // The link's own refund sums are the merchant's refunds: the late payment's is not one of them.
    const [sums] = await system.linksDb.query('SELECT amount_refunded, amount_refund_pending FROM payment_links WHERE id = $1', [link.id]);
    expect(sums).toEqual({ amount_refunded: '0', amount_refund_pending: '0' });
    expect(await eventTypesOf(system.linksDb, link.id)).toEqual([
      'payment_link.canceled',
      'unresolved_payment.created',
      'unresolved_payment.refunded',
    ]);
  });

  const failRefund = (refundId: string | null): Promise<Refund> =>
    system.bus.request(
      subjects.refundsSettle,
      { refund_id: refundId, provider: null, gateway_refund_id: null, status: 'failed', failure_reason: 'The card was closed' },
      platform,
    );
  /** Each account's sum of the late payment's entries: the clearing nets to zero once a refund and its reversal are in. */
  const entrySums = (lateId: string) =>
    system.linksDb.query<{ types: string; kind: string; sum: string; entries: string }>(
      `SELECT string_agg(DISTINCT t.type, ',') AS types, a.kind, sum(e.amount)::text AS sum, count(*)::text AS entries
         FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
        WHERE t.late_payment_id = $1 GROUP BY a.kind`,
      [lateId],
    );

  it('a failed late refund makes the payment unresolved again, its posting reversed with the failure, and refund.failed says so', async () => {
    const { lateId, link } = await latePayment();
    const before = await available(true);
    const resolved = await resolveLatePayment(deps, { id: lateId, action: 'refund', destination: null });
    const failed = await failRefund(resolved.refundId);
    expect(failed).toMatchObject({ id: resolved.refundId, status: 'failed', failure_reason: 'The card was closed', late_payment_id: lateId });
    const [record] = await system.linksDb.query('SELECT resolution, resolved_at FROM unresolved_payments WHERE id = $1', [lateId]);
    expect(record).toEqual({ resolution: null, resolved_at: null });
    // The refund-out leg booked at resolution is taken back in the failure's transaction: the ledger holds the payment
    // nowhere, as before the resolve, and the shop's balance never moved.
    expect((await ledgerOf(lateId)).map((t) => t.type)).toEqual(['late_refund', 'late_refund_failed']);
    expect(await entrySums(lateId)).toEqual([{ types: 'late_refund,late_refund_failed', kind: 'clearing', sum: '0', entries: '4' }]);
    expect(await available(true)).toBe(before);
    // The merchant hears of it truthfully: the refund names the late payment, whose money is not the shop's balance.
    const events = await outboxEventsOf(system.linksDb, link.id);
    expect(events.map((e) => e.event.event)).toEqual([
      'payment_link.canceled',
      'unresolved_payment.created',
      'unresolved_payment.refunded',
      'refund.failed',
    ]);
    expect(events[3]?.event.data).toMatchObject({ id: resolved.refundId, status: 'failed', late_payment_id: lateId });
    // Resolvable again: an operator settles it now, and the shop is credited once.
    await expect(resolveLatePayment(deps, { id: lateId, action: 'settle', destination: null })).resolves.toMatchObject({
      late: { resolution: 'settled' },
    });
    expect(await available(true)).toBe(before + 150000);
    expect((await ledgerOf(lateId)).map((t) => t.type)).toEqual(['late_refund', 'late_refund_failed', 'late_payment']);
  });

  it('a late payment whose refund failed can be refunded anew; a repeat of the failure moves nothing twice', async () => {
    const { lateId } = await latePayment();
    const first = await resolveLatePayment(deps, { id: lateId, action: 'refund', destination: null });
    await failRefund(first.refundId);
    await expect(failRefund(first.refundId)).resolves.toMatchObject({ status: 'failed' });
    const second = await resolveLatePayment(deps, { id: lateId, action: 'refund', destination: null });
    expect(second.refundId).not.toBe(first.refundId);
    const succeeded = await system.bus.request(
      subjects.refundsSettle,
      { refund_id: second.refundId, provider: null, gateway_refund_id: null, status: 'succeeded', failure_reason: null },
      platform,
    );
    expect(succeeded).toMatchObject({ status: 'succeeded', late_payment_id: lateId });
    const [record] = await system.linksDb.query<{ resolution: string }>('SELECT resolution FROM unresolved_payments WHERE id = $1', [lateId]);
    expect(record?.resolution).toBe('refunded');
    expect((await ledgerOf(lateId)).map((t) => t.type)).toEqual(['late_refund', 'late_refund_failed', 'late_refund']);
    expect(await entrySums(lateId)).toEqual([{ types: 'late_refund,late_refund_failed', kind: 'clearing', sum: '0', entries: '6' }]);
    // The first refund's failure cannot come back as a success: money that moved is not moved back.
    await expect(
      system.bus.request(
        subjects.refundsSettle,
        { refund_id: first.refundId, provider: null, gateway_refund_id: null, status: 'succeeded', failure_reason: null },
        platform,
      ),
    ).rejects.toMatchObject({ code: 'refund.err.not_pending' });
  });

  it("refund takes a destination for a crypto payment only, as a merchant's refund; a refused one resolves nothing", async () => {
    const sbp = await latePayment();
    await expect(resolveLatePayment(deps, { id: sbp.lateId, action: 'refund', destination: 'UQAbc' })).rejects.toMatchObject({
      code: 'common.err.validation_failed',
    });
    const crypto = await latePayment(apiKey(merchant), 'USDT-TON');
    await expect(resolveLatePayment(deps, { id: crypto.lateId, action: 'refund', destination: null })).rejects.toMatchObject({
      code: 'common.err.validation_failed',
    });
    await expect(resolveLatePayment(deps, { id: crypto.lateId, action: 'refund', destination: 'not-an-address' })).rejects.toMatchObject({
      code: 'common.err.validation_failed',
    });
    const unresolved = await system.linksDb.query<{ resolution: string | null }>(
      'SELECT resolution FROM unresolved_payments WHERE id = ANY($1::uuid[])',
      [[sbp.lateId, crypto.lateId]],
    );
    expect(unresolved).toEqual([{ resolution: null }, { resolution: null }]);
    // Still resolvable.
    await expect(resolveLatePayment(deps, { id: sbp.lateId, action: 'refund', destination: null })).resolves.toMatchObject({
      late: { resolution: 'refunded' },
    });
  });

  it('answers 404 for an unknown late payment', async () => {
    await expect(resolveLatePayment(deps, { id: randomUUID(), action: 'settle', destination: null })).rejects.toMatchObject({
      code: 'common.err.not_found',
    });
  });

  it('resolves a test late payment the same way, in the test accounts', async () => {
    const { lateId, link } = await latePayment(testKey(merchant));
    const live = await available(true);
    const test = await available(false);
    await resolveLatePayment(deps, { id: lateId, action: 'settle', destination: null });
    expect(await available(true)).toBe(live);
    expect(await available(false)).toBe(test + 150000);
    expect(await ledgerOf(lateId)).toEqual([expect.objectContaining({ type: 'late_payment', livemode: false })]);
    const events = await outboxEventsOf(system.linksDb, link.id);
    expect(events.map((e) => e.event.event).sort()).toEqual(SETTLED_LATE_EVENTS);
    expect(events.every((e) => !e.event.livemode)).toBe(true);
    await expect(resolveLatePayment(deps, { id: lateId, action: 'settle', destination: null })).rejects.toMatchObject({
      code: 'late_payment.err.already_resolved',
    });
  });
});
