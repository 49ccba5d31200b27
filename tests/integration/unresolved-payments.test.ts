// Unresolved payments (docs/money.md, "Unresolved payments") arising from the real adapters' callbacks (Raiffeisen SBP,
// Heleket) against their local fakes, across the real gateway, links, shops and notifier, Postgres, NATS and Kafka:
// each reason is recorded once with the link's move, and resolved exactly once under 20 concurrent resolves (settles
// and refunds racing), the ledger clean after.
import { randomUUID } from 'node:crypto';
import { Db } from '@pl/db';
import { parseConfig } from '@pl/config';
import { LINKS_SCHEMA, RefundRepository, resolveUnresolvedPayment, UnresolvedPaymentRepository } from '@pl/links';
import { providerEnv, providersFrom } from '@pl/providers';
import { createLogger } from '@pl/telemetry';
import { expectError } from '../support/http';
import { verifyLedger } from '../support/money';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { createLiveLink } from '../support/live-links';

let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
let linksDb: Db;
/** The merchant's dashboard session (the /api/v1 family). */
let session: Record<string, string>;

const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

beforeAll(async () => {
  sys = await startSystem({ providerFakes: true });
  merchant = await sys.merchant();
  // The client pays the fee (SBP 300 bps, crypto 100 bps): an unresolved payment's fee falls on the shop all the same.
  shop = await sys.shop(merchant.id, { feePayer: 'client', cryptoBps: 100, sbpBps: 300 });
  session = { Authorization: `Bearer ${await sys.login(merchant)}` };
  linksDb = new Db({ url: sys.database.url, schema: LINKS_SCHEMA, log: createLogger('unresolved-test', 'silent') });
});
afterAll(async () => {
  await linksDb?.close();
  await sys?.stop();
});

/** Kopecks of a money text ("1030.00"). */
const kopecks = (text: unknown): number => Math.round(Number(text) * 100);

const liveLink = (amount: string): Promise<string> => createLiveLink(sys, merchant, shop, amount, 'u');
const link = async (id: string) => (await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys })).body;

/** Selects SBP: the Raiffeisen QR of the attempt, and what it asks in kopecks. */
const selectSbp = async (id: string, n = 1): Promise<{ qrId: string; asked: number }> => {
  const res = await sys.http.post(`/p/${id}/select`, { method: 'sbp' });
  expect(res.status).toBe(200);
  const qr = sys.fakes.raiffeisen.qrOf(`${id}-${n}`);
  if (!qr) throw new Error('no QR registered');
  return { qrId: qr.qrId, asked: kopecks(res.body.payer_amount) };
};
/** Selects USDT on TRON: the Heleket invoice of the attempt, the coin amount and the kopecks it asks. */
const selectCrypto = async (id: string, n = 1): Promise<{ uuid: string; coins: string; asked: number }> => {
  const res = await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' });
  expect(res.status).toBe(200);
  const invoice = sys.fakes.heleket.invoiceByOrder(`${id}-${n}`);
  if (!invoice) throw new Error('no invoice made');
  return { uuid: invoice.uuid, coins: invoice.payerAmount, asked: kopecks(res.body.payer_amount) };
};

/** Moves a Heleket invoice and waits for its callback to be answered (200: links recorded what it had to first). */
const heleket = async (move: () => unknown): Promise<void> => {
  const before = sys.fakes.heleket.deliveries.length;
  move();
  const delivered = await sys.fakes.heleket.deliveriesReach(before + 1);
  expect(delivered[before]).toMatchObject({ answer: 200 });
};

/** A decimal text times `factor` (a whole number), exactly: what a buyer who sent that multiple sent. */
const times = (decimal: string, factor: number): string => {
  const [whole = '0', fraction = ''] = decimal.split('.');
  const units = BigInt(whole + fraction) * BigInt(factor);
  const text = units.toString().padStart(fraction.length + 1, '0');
  return fraction.length === 0 ? text : `${text.slice(0, -fraction.length)}.${text.slice(-fraction.length)}`;
};
/** The RUB value in kopecks, rounded down, of `arrived` coins at the invoice's rate (asked kopecks for `asked` coins). */
const valueAt = (askedKopecks: number, askedCoins: string, arrived: string): number => {
  const scaled = (d: string, places: number) => BigInt((d.split('.')[0] ?? '0') + (d.split('.')[1] ?? '').padEnd(places, '0'));
  const places = Math.max(askedCoins.split('.')[1]?.length ?? 0, arrived.split('.')[1]?.length ?? 0);
  return Number((BigInt(askedKopecks) * scaled(arrived, places)) / scaled(askedCoins, places));
};

/** A record's row (sys.sql's rows are records). */
interface Row extends Record<string, unknown> {
  id: string;
  reason: string;
  link_status: string;
  amount: string;
  merchant_credit: string;
  platform_revenue: string;
  status: string;
  payer_crypto_amount: string | null;
  order_id: string | null;
}
const records = (linkId: string) =>
  sys.sql<Row>(
    `SELECT id, reason, link_status, amount, merchant_credit, platform_revenue, status, payer_crypto_amount, order_id
       FROM links.unresolved_payments WHERE link_id = $1 ORDER BY received_at`,
    [linkId],
  );
const events = (linkId: string) =>
  sys.sql<{ event: string; data: Record<string, unknown> }>(
    `SELECT payload->>'event' AS event, payload->'data' AS data FROM links.outbox WHERE message_key = $1 ORDER BY created_at, id`,
    [linkId],
  );

/** The operators' resolve (unresolved:resolve's library call), with the system's providers: the fakes. */
const resolveDeps = () => ({
  unresolvedPayments: new UnresolvedPaymentRepository(linksDb),
  refunds: new RefundRepository(linksDb),
  providers: providersFrom(parseConfig(providerEnv, sys.env), { publicBaseUrl: sys.baseUrl }),
  providerTimeoutMs: 5000,
  newId: randomUUID,
  eventsTopic: sys.env.PAYMENT_EVENTS_TOPIC ?? 'payment-events',
  warn: () => undefined,
});

/**
 * 20 resolves of one record at once, settles and refunds alternating: the merchant's through both route families
 * (each with its own Idempotency-Key), or an operator's settles (`operator`, for an AML hold). Exactly one wins, every
 * other is 409 unresolved_payment.err.already_resolved, and exactly one posting of the resolution is written.
 */
async function resolveRacing(id: string, destination: string | null, by: 'merchant' | 'operator' = 'merchant'): Promise<'settled' | 'refunded'> {
  const deps = resolveDeps();
  const viaHttp = async (i: number): Promise<unknown> => {
    const family = i % 4 < 2 ? '/merchant/v1' : '/api/v1';
    const headers = { ...(family === '/api/v1' ? session : merchant.keys), 'Idempotency-Key': randomUUID() };
    const res =
      i % 2 === 0
        ? await sys.http.post(`${family}/unresolved-payments/${id}/settle`, {}, { headers })
        : await sys.http.post(`${family}/unresolved-payments/${id}/refund`, destination === null ? {} : { destination }, { headers });
    if (res.status !== 200) throw Object.assign(new Error(`HTTP ${res.status}`), { httpStatus: res.status, code: res.body?.error?.code });
    expect(res.body).toMatchObject({ id, status: i % 2 === 0 ? 'settled' : 'refunded' });
    return res.body;
  };
  const outcomes = await Promise.allSettled(
    Array.from({ length: 20 }, (_, i) =>
      by === 'merchant' ? viaHttp(i) : resolveUnresolvedPayment(deps, { kind: 'operator' }, { id, action: 'settle', destination: null }),
    ),
  );
  const won = outcomes.filter((o) => o.status === 'fulfilled');
  expect(won).toHaveLength(1);
  for (const o of outcomes)
    if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'unresolved_payment.err.already_resolved', httpStatus: 409 });
  const [record] = await sys.sql<{ status: string; refund_id: string | null }>(
    'SELECT status, refund_id FROM links.unresolved_payments WHERE id = $1',
    [id],
  );
  const postings = await sys.sql<{ type: string }>('SELECT type FROM links.ledger_transactions WHERE late_payment_id = $1', [id]);
  const refunds = await sys.sql<{ id: string }>('SELECT id FROM links.refunds WHERE late_payment_id = $1', [id]);
  if (record?.status === 'settled') {
    expect(postings.map((p) => p.type)).toEqual([expect.stringMatching(/^(unresolved_payment|late_payment)$/)]);
    expect(refunds).toEqual([]);
  } else {
    expect(record?.status).toBe('refunded');
    expect(postings.map((p) => p.type)).toEqual(['late_refund']);
    expect(refunds.map((r) => r.id)).toEqual([record?.refund_id]);
  }
  return record?.status as 'settled' | 'refunded';
}

/** The shop's live available balance, in kopecks. */
const available = async (): Promise<number> => {
  const [row] = await sys.sql<{ balance: string }>(
    "SELECT balance FROM links.ledger_accounts WHERE shop_id = $1 AND livemode AND kind = 'available'",
    [shop.id],
  );
  return Number(row?.balance ?? 0);
};

describe('unresolved payments from the real providers, each resolved once', () => {
  it('Heleket paid_over: the link is paid at the asked amount and the surplus is an overpaid record, valued at the invoice rate', async () => {
    const id = await liveLink('2500.00');
    const { uuid, coins, asked } = await selectCrypto(id);
    const sent = times(coins, 2);
    await heleket(() => sys.fakes.heleket.overpay(uuid, sent));
    expect(await link(id)).toMatchObject({ status: 'paid', payer_amount: (asked / 100).toFixed(2), failure_reason: null });
    const surplus = valueAt(asked, coins, sent) - asked;
    expect(surplus).toBe(asked);
    const fee = Math.round((surplus * 100) / 10000);
    expect(await records(id)).toEqual([
      {
        id: expect.any(String),
        reason: 'overpaid',
        link_status: 'paid',
        amount: String(surplus),
        merchant_credit: String(surplus - fee),
        platform_revenue: String(fee),
        status: 'unresolved',
        payer_crypto_amount: sent,
        order_id: `${id}-1`,
      },
    ]);
    // One transaction wrote both (one created_at): their order is the ids'.
    expect((await events(id)).map((e) => e.event).sort()).toEqual(['payment.succeeded', 'unresolved_payment.created']);
    // The provider repeats its callback: nothing is recorded twice.
    await heleket(() => sys.fakes.heleket.overpay(uuid, sent));
    expect(await records(id)).toHaveLength(1);

    const before = await available();
    const [record] = await records(id);
    const outcome = await resolveRacing(record!.id, TRON_ADDRESS);
    expect(await available()).toBe(outcome === 'settled' ? before + surplus - fee : before);
  });

  it('Heleket wrong_amount: the link fails underpaid (payment.failed says so) and what arrived is an underpaid record', async () => {
    const id = await liveLink('1800.00');
    const { uuid, coins, asked } = await selectCrypto(id);
    const sent = '1.5';
    await heleket(() => sys.fakes.heleket.underpay(uuid, sent));
    expect(await link(id)).toMatchObject({ status: 'failed', failure_reason: 'underpaid' });
    const arrived = valueAt(asked, coins, sent);
    expect(await records(id)).toEqual([expect.objectContaining({ reason: 'underpaid', link_status: 'failed', amount: String(arrived) })]);
    const written = await events(id);
    expect(written.map((e) => e.event).sort()).toEqual(['payment.failed', 'unresolved_payment.created']);
    expect(written.find((e) => e.event === 'payment.failed')?.data).toMatchObject({ failure_reason: 'underpaid' });
    expect(written.find((e) => e.event === 'unresolved_payment.created')?.data).toMatchObject({
      reason: 'underpaid',
      amount: (arrived / 100).toFixed(2),
      status: 'unresolved',
      payer_currency: 'USDT',
    });
    await heleket(() => sys.fakes.heleket.underpay(uuid, sent));
    expect(await records(id)).toHaveLength(1);
    const [record] = await records(id);
    // A crypto payment goes back to the buyer's address on its network, checked as a refund's is.
    const refund = `/merchant/v1/unresolved-payments/${record!.id}/refund`;
    expectError(await sys.http.post(refund, {}, { headers: merchant.keys }), 400, 'common.err.validation_failed');
    expectError(
      await sys.http.post(refund, { destination: '0xdAC17F958D2ee523a2206206994597C13D831ec7' }, { headers: merchant.keys }),
      400,
      'common.err.validation_failed',
    );
    await resolveRacing(record!.id, TRON_ADDRESS);
  });

  it('Heleket locked: the link fails aml_hold and the held payment is an aml_hold record, resolved by an operator only', async () => {
    const id = await liveLink('900.00');
    const { uuid, asked } = await selectCrypto(id);
    await heleket(() => sys.fakes.heleket.lock(uuid));
    expect(await link(id)).toMatchObject({ status: 'failed', failure_reason: 'aml_hold' });
    expect(await records(id)).toEqual([expect.objectContaining({ reason: 'aml_hold', link_status: 'failed', amount: String(asked) })]);
    const written = await events(id);
    expect(written.map((e) => e.event).sort()).toEqual(['payment.failed', 'unresolved_payment.created']);
    expect(written.find((e) => e.event === 'payment.failed')?.data).toMatchObject({ status: 'failed', failure_reason: 'aml_hold' });
    // Heleket repeats it: nothing is recorded twice.
    await heleket(() => sys.fakes.heleket.lock(uuid));
    expect(await records(id)).toHaveLength(1);
    expect(await events(id)).toHaveLength(2);
    const [record] = await records(id);
    // The merchant sees it, but may not resolve it.
    expect((await sys.http.get(`/merchant/v1/unresolved-payments/${record!.id}`, { headers: merchant.keys })).body).toMatchObject({
      reason: 'aml_hold',
      status: 'unresolved',
    });
    expectError(
      await sys.http.post(`/merchant/v1/unresolved-payments/${record!.id}/settle`, {}, { headers: merchant.keys }),
      403,
      'common.err.forbidden',
    );
    expectError(
      await sys.http.post(`/api/v1/unresolved-payments/${record!.id}/refund`, { destination: TRON_ADDRESS }, { headers: session }),
      403,
      'common.err.forbidden',
    );
    // Heleket refunds no held payment; the operator settles it once the checks clear.
    expect(await resolveRacing(record!.id, TRON_ADDRESS, 'operator')).toBe('settled');
  });

  it('Raiffeisen SUCCESS for more: the link is paid and the surplus is an overpaid record', async () => {
    const id = await liveLink('1000.00');
    const { qrId, asked } = await selectSbp(id);
    const [delivery] = await sys.fakes.raiffeisen.overpay(qrId, 5000);
    expect(delivery?.status).toBe(200);
    expect(await link(id)).toMatchObject({ status: 'paid', payer_amount: (asked / 100).toFixed(2) });
    expect(await records(id)).toEqual([
      expect.objectContaining({ reason: 'overpaid', link_status: 'paid', amount: '5000', merchant_credit: '4850', platform_revenue: '150' }),
    ]);
    await sys.fakes.raiffeisen.redeliver(qrId);
    expect(await records(id)).toHaveLength(1);
    const before = await available();
    const [record] = await records(id);
    const outcome = await resolveRacing(record!.id, null);
    expect(await available()).toBe(outcome === 'settled' ? before + 4850 : before);
  });

  it('Raiffeisen SUCCESS for less: the link fails underpaid and what arrived is an underpaid record', async () => {
    const id = await liveLink('1000.00');
    const { qrId, asked } = await selectSbp(id);
    const [delivery] = await sys.fakes.raiffeisen.underpay(qrId, 30000);
    expect(delivery?.status).toBe(200);
    expect(await link(id)).toMatchObject({ status: 'failed', failure_reason: 'underpaid' });
    expect(await records(id)).toEqual([expect.objectContaining({ reason: 'underpaid', link_status: 'failed', amount: String(asked - 30000) })]);
    const failed = (await events(id)).find((e) => e.event === 'payment.failed');
    expect(failed?.data).toMatchObject({ failure_reason: 'underpaid' });
    await sys.fakes.raiffeisen.redeliver(qrId);
    expect(await records(id)).toHaveLength(1);
    const [record] = await records(id);
    await resolveRacing(record!.id, null);
  });

  it('a payment of another attempt after the link was paid is a duplicate record of that attempt', async () => {
    const id = await liveLink('1200.00');
    const crypto = await selectCrypto(id, 1);
    const { qrId } = await selectSbp(id, 2);
    await sys.fakes.raiffeisen.pay(qrId);
    expect(await link(id)).toMatchObject({ status: 'paid' });
    await heleket(() => sys.fakes.heleket.pay(crypto.uuid));
    await heleket(() => sys.fakes.heleket.pay(crypto.uuid));
    expect(await records(id)).toEqual([
      expect.objectContaining({ reason: 'duplicate', link_status: 'paid', amount: String(crypto.asked), order_id: `${id}-1` }),
    ]);
    const [record] = await records(id);
    await resolveRacing(record!.id, TRON_ADDRESS);
  });

  it('a payment after the link was canceled is a late record; its settle also sends payment.late_settled', async () => {
    const id = await liveLink('700.00');
    const { uuid, asked } = await selectCrypto(id);
    const canceled = await sys.http.post(`/merchant/v1/payment-links/${id}/cancel`, {}, { headers: merchant.keys });
    expect(canceled.status).toBe(200);
    await heleket(() => sys.fakes.heleket.pay(uuid));
    expect(await link(id)).toMatchObject({ status: 'canceled' });
    expect(await records(id)).toEqual([expect.objectContaining({ reason: 'late', link_status: 'canceled', amount: String(asked) })]);
    const [record] = await records(id);
    const outcome = await resolveRacing(record!.id, TRON_ADDRESS);
    const types = (await events(id)).map((e) => e.event);
    if (outcome === 'settled') expect(types).toEqual(expect.arrayContaining(['payment.late_settled', 'unresolved_payment.settled']));
    else expect(types).toContain('unresolved_payment.refunded');
  });

  it('lists them to the merchant newest first, by reason and status, a cursor page at a time; another merchant sees none', async () => {
    const all = await sys.http.get('/merchant/v1/unresolved-payments', { headers: merchant.keys });
    expect(all.status).toBe(200);
    expect(all.body.unresolved_payments).toHaveLength(7);
    expect(new Set(all.body.unresolved_payments.map((u: { reason: string }) => u.reason))).toEqual(
      new Set(['overpaid', 'underpaid', 'aml_hold', 'duplicate', 'late']),
    );
    const overpaid = await sys.http.get('/api/v1/unresolved-payments?reason=overpaid', { headers: session });
    expect(overpaid.body.unresolved_payments.map((u: { reason: string }) => u.reason)).toEqual(['overpaid', 'overpaid']);
    const first = await sys.http.get(`/merchant/v1/unresolved-payments?limit=4&shop_id=${shop.id}`, { headers: merchant.keys });
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const rest = await sys.http.get(`/merchant/v1/unresolved-payments?limit=4&cursor=${first.body.next_cursor}`, { headers: merchant.keys });
    expect(rest.body).toMatchObject({ has_more: false, next_cursor: null });
    expect([...first.body.unresolved_payments, ...rest.body.unresolved_payments]).toEqual(all.body.unresolved_payments);
    const open = await sys.http.get('/merchant/v1/unresolved-payments?status=unresolved', { headers: merchant.keys });
    expect(open.body.unresolved_payments).toEqual([]);

    const other = await sys.merchant();
    expect((await sys.http.get('/merchant/v1/unresolved-payments', { headers: other.keys })).body.unresolved_payments).toEqual([]);
    const id = all.body.unresolved_payments[0].id as string;
    expectError(await sys.http.get(`/merchant/v1/unresolved-payments/${id}`, { headers: other.keys }), 403, 'common.err.forbidden');
    expectError(await sys.http.post(`/merchant/v1/unresolved-payments/${id}/settle`, {}, { headers: other.keys }), 403, 'common.err.forbidden');
    expectError(await sys.http.get(`/merchant/v1/unresolved-payments?shop_id=${shop.id}`, { headers: other.keys }), 403, 'common.err.forbidden');
    expectError(await sys.http.get(`/merchant/v1/unresolved-payments/${randomUUID()}`, { headers: merchant.keys }), 404, 'common.err.not_found');
    // A second resolve of a resolved one: 409.
    expectError(
      await sys.http.post(`/merchant/v1/unresolved-payments/${id}/settle`, {}, { headers: merchant.keys }),
      409,
      'unresolved_payment.err.already_resolved',
    );
  });

  it('leaves the ledger clean', async () => {
    const verified = await verifyLedger(sys);
    expect(verified).toEqual({ transactions: expect.any(Number), unbalanced: 0, balances_mismatched: 0 });
    expect(verified.transactions).toBeGreaterThan(0);
  });
});
