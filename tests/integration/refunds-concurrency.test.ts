import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { formatKopecks } from '@pl/money';
import { expectError, type ApiResponse } from '../support/http';
import { expectLedgerClean, refundCallback } from '../support/money';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * docs/money.md, "Refunds", under load through the HTTP API: concurrent refunds never pass either limit (what is
 * left to refund on a link, the shop's available balance), and one Idempotency-Key makes one refund however the
 * client drops and retries its request.
 */

jest.setTimeout(120_000);

const PARALLEL = 50;

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_API_KEY_PER_MINUTE: '1000000000' } });
}, 60_000);
afterAll(async () => {
  await sys?.stop();
});

const kopecksOf = (money: string): bigint => BigInt(money.replace('.', ''));

async function paidLink(merchant: TestMerchant, shop: TestShop, amount: string): Promise<string> {
  const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount }, { headers: merchant.keys });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
  return id;
}

const refund = (merchant: TestMerchant, linkId: string, body: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> =>
  sys.http.post(`/merchant/v1/payment-links/${linkId}/refunds`, body, { headers: { ...merchant.keys, ...headers } });

async function balanceOf(merchant: TestMerchant, shop: TestShop): Promise<{ available: string; refund_reserve: string }> {
  const res = await sys.http.get(`/merchant/v1/balance?shop_id=${shop.id}`, { headers: merchant.keys });
  expect(res.status).toBe(200);
  return { available: res.body.available as string, refund_reserve: res.body.refund_reserve as string };
}

/** Counts answers as `status code` (201 has no code). */
const tally = (answers: ApiResponse[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const key = a.status === 201 ? '201' : `${a.status} ${a.body?.error?.code as string}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
};

it(`${PARALLEL} refunds at once on one link never pass what is left to refund, before and after some settle`, async () => {
  // The client pays the fee, so the shop is credited the whole amount; a second link's credit keeps the balance
  // out of the way: only the link's refundable amount can bind.
  const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'client' });
  const link = await paidLink(merchant, shop, '100.00');
  await paidLink(merchant, shop, '1000.00');

  const first = await Promise.all(Array.from({ length: PARALLEL }, () => refund(merchant, link, { amount: '5.00' })));
  expect(tally(first)).toEqual({ '201': 20, '422 refund.err.amount_exceeds_refundable': PARALLEL - 20 });
  for (const res of first.filter((r) => r.status !== 201)) expectError(res, 422, 'refund.err.amount_exceeds_refundable');
  expect(await balanceOf(merchant, shop)).toEqual({ available: '1000.00', refund_reserve: '100.00' });

  // Half succeed and half fail, their callbacks all at once (each twice: a provider's repeat is harmless).
  const made = first.filter((r) => r.status === 201).map((r) => r.body as { id: string; gateway_refund_id: string });
  expect(made.every((r) => r.gateway_refund_id === `sbr_${r.id}`)).toBe(true);
  const settled = await Promise.all(
    [...made, ...made].map((r, i) =>
      refundCallback(sys, r.gateway_refund_id, i % 2 === 0 ? 'succeeded' : 'failed', i % 2 === 0 ? undefined : 'declined'),
    ),
  );
  expect(settled.map((r) => r.status)).toEqual(settled.map(() => 200));
  const read = await sys.http.get(`/merchant/v1/payment-links/${link}`, { headers: merchant.keys });
  expect(read.body).toMatchObject({ status: 'paid', amount_refunded: '50.00' });
  expect(await balanceOf(merchant, shop)).toEqual({ available: '1050.00', refund_reserve: '0.00' });

  // 50.00 left: ten more, not one beyond.
  const second = await Promise.all(Array.from({ length: PARALLEL }, () => refund(merchant, link, { amount: '5.00' })));
  expect(tally(second)).toEqual({ '201': 10, '422 refund.err.amount_exceeds_refundable': PARALLEL - 10 });
  const [row] = await sys.sql<{ refunded: string; pending: string }>(
    'SELECT amount_refunded::text AS refunded, amount_refund_pending::text AS pending FROM links.payment_links WHERE id = $1',
    [link],
  );
  expect(row).toEqual({ refunded: '5000', pending: '5000' });
  expect(await balanceOf(merchant, shop)).toEqual({ available: '1000.00', refund_reserve: '50.00' });
  await expectLedgerClean(sys);
});

it(`${PARALLEL} refunds at once across one shop's links never pass its available balance`, async () => {
  // The merchant pays a 1 % fee: 50 links of 100.00 credit 4950.00, so 50 whole refunds (5000.00) cannot all pass.
  const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'merchant', cryptoBps: 100 });
  const links: string[] = [];
  for (let i = 0; i < PARALLEL; i++) links.push(await paidLink(merchant, shop, '100.00'));
  expect(await balanceOf(merchant, shop)).toEqual({ available: '4950.00', refund_reserve: '0.00' });

  const answers = await Promise.all(links.map((id) => refund(merchant, id, {})));
  expect(tally(answers)).toEqual({ '201': PARALLEL - 1, '422 refund.err.insufficient_balance': 1 });
  expect(answers.filter((r) => r.status === 201).every((r) => r.body.amount === '100.00')).toBe(true);
  expect(await balanceOf(merchant, shop)).toEqual({ available: '50.00', refund_reserve: '4900.00' });

  // 50.00 is left, and one link still has 100.00 to give: 50 refunds of 1.01 on it at once meet the balance first.
  const refunded = new Set(answers.filter((r) => r.status === 201).map((r) => r.body.payment_link_id as string));
  const untouched = links.filter((id) => !refunded.has(id));
  expect(untouched).toHaveLength(1);
  const spread = await Promise.all(Array.from({ length: PARALLEL }, () => refund(merchant, untouched[0]!, { amount: '1.01' })));
  expect(tally(spread)).toEqual({ '201': 49, '422 refund.err.insufficient_balance': 1 });
  const balance = await balanceOf(merchant, shop);
  expect(kopecksOf(balance.available)).toBe(5000n - 49n * 101n);
  expect(kopecksOf(balance.refund_reserve)).toBe(490000n + 49n * 101n);
  await expectLedgerClean(sys);
});

it(`${PARALLEL} refunds at once on one link, each with an Idempotency-Key of its own, never pass what is left to refund either`, async () => {
  // The keyed path claims its key in the refund's transaction too: keys of their own must not make concurrent
  // refunds of one link trip over each other (a deadlock answered 500) instead of being judged one by one.
  const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'client' });
  const link = await paidLink(merchant, shop, '100.00');
  await paidLink(merchant, shop, '1000.00');
  const answers = await Promise.all(
    Array.from({ length: PARALLEL }, (_, i) => refund(merchant, link, { amount: '5.00' }, { 'Idempotency-Key': `own-${i}-${randomUUID()}` })),
  );
  expect(tally(answers)).toEqual({ '201': 20, '422 refund.err.amount_exceeds_refundable': PARALLEL - 20 });
  expect(await balanceOf(merchant, shop)).toEqual({ available: '1000.00', refund_reserve: '100.00' });
  await expectLedgerClean(sys);
});

/** Sends a refund request and cuts the connection `afterMs` after the body went out (0: as soon as it did). */
function droppedRefund(merchant: TestMerchant, linkId: string, body: string, key: string, afterMs: number): Promise<'dropped' | number> {
  return new Promise((resolve) => {
    const url = new URL(`${sys.baseUrl}/merchant/v1/payment-links/${linkId}/refunds`);
    const req = request(url, {
      method: 'POST',
      headers: { ...merchant.keys, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'Idempotency-Key': key },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve('dropped'));
    req.end(body, () => {
      setTimeout(() => req.destroy(), afterMs);
    });
  });
}

it('one Idempotency-Key gives one refund whatever drops and retries the client makes, at once or one after another', async () => {
  const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'client' });
  const link = await paidLink(merchant, shop, '300.00');
  const key = `refund-${randomUUID()}`;
  const body = JSON.stringify({ amount: '120.00', reason: 'returned' });

  // Drops at every point from "just sent" to "well after links answered", some of them at once.
  const drops = await Promise.all(Array.from({ length: 30 }, (_, i) => droppedRefund(merchant, link, body, key, i % 2 === 0 ? 0 : i * 3)));
  expect(drops.filter((d) => d === 'dropped').length).toBeGreaterThan(0);
  // Whatever reached an answer before its drop was the refund or a clean "still in progress".
  expect(drops.filter((d) => d !== 'dropped' && d !== 201 && d !== 409)).toEqual([]);

  // The client retries, several at once, until it hears 201.
  let answers: ApiResponse[] = [];
  for (let attempt = 0; attempt < 50 && !answers.some((a) => a.status === 201); attempt++) {
    answers = await Promise.all(Array.from({ length: 5 }, () => refund(merchant, link, body, { 'Idempotency-Key': key })));
    for (const a of answers.filter((x) => x.status !== 201)) expectError(a, 409, 'common.err.idempotency_conflict');
  }
  const ok = answers.filter((a) => a.status === 201);
  expect(ok.length).toBeGreaterThan(0);
  const refundId = ok[0]!.body.id as string;
  expect(new Set(ok.map((a) => a.body.id))).toEqual(new Set([refundId]));

  // Later retries, one by one, are the same refund, replayed.
  for (let i = 0; i < 3; i++) {
    const again = await refund(merchant, link, body, { 'Idempotency-Key': key });
    expect({ status: again.status, id: again.body.id, replayed: again.headers.get('idempotent-replayed') }).toEqual({
      status: 201,
      id: refundId,
      replayed: 'true',
    });
  }
  // The same key with another body is a conflict, and makes nothing.
  expectError(await refund(merchant, link, { amount: '1.00' }, { 'Idempotency-Key': key }), 409, 'common.err.idempotency_conflict');

  const rows = await sys.sql<{ id: string; amount: string }>('SELECT id::text, amount::text FROM links.refunds WHERE payment_link_id = $1', [link]);
  expect(rows).toEqual([{ id: refundId, amount: '12000' }]);
  expect(await balanceOf(merchant, shop)).toEqual({ available: formatKopecks(30000 - 12000), refund_reserve: '120.00' });
  const statement = await sys.http.get(`/merchant/v1/balance-transactions?shop_id=${shop.id}&type=refund`, { headers: merchant.keys });
  expect(statement.body.balance_transactions.map((t: { refund_id: string; amount: string }) => [t.refund_id, t.amount])).toEqual([
    [refundId, '-120.00'],
  ]);
  await expectLedgerClean(sys);
});

it('replays no refusal under an Idempotency-Key: a retry after the link is paid, or after funds arrive, makes the refund', async () => {
  // Not paid yet: 409 not_paid, then the provider pays the link, and the same key and body make the refund.
  const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'merchant', cryptoBps: 100 });
  const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '100.00' }, { headers: merchant.keys });
  const link = created.body.id as string;
  const key = `not-paid-${randomUUID()}`;
  expectError(await refund(merchant, link, { amount: '10.00' }, { 'Idempotency-Key': key }), 409, 'payment_link.err.not_paid');
  expect((await sys.providerCallback(sandboxPaymentId(link), 'paid')).status).toBe(200);
  const made = await refund(merchant, link, { amount: '10.00' }, { 'Idempotency-Key': key });
  expect({ status: made.status, replayed: made.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: null });

  // Short of funds (the shop pays a 1 % fee, so a link of 100.00 credits 99.00): 89.00 left after that refund, 99.00
  // from a second link, 1.98 from a third, less the first link's remaining 90.00 refunded: 99.98, short of the
  // second link's whole 100.00. A payment of 10.00 brings the funds, and the same key and body make the refund.
  const whole = `short-${randomUUID()}`;
  const other = await paidLink(merchant, shop, '100.00');
  await paidLink(merchant, shop, '2.00');
  expect((await refund(merchant, link, {})).status).toBe(201);
  const body = { reason: 'all of it' };
  const short = await refund(merchant, other, body, { 'Idempotency-Key': whole });
  expectError(short, 422, 'refund.err.insufficient_balance');
  await paidLink(merchant, shop, '10.00');
  const after = await refund(merchant, other, body, { 'Idempotency-Key': whole });
  expect({ status: after.status, amount: after.body.amount, replayed: after.headers.get('idempotent-replayed') }).toEqual({
    status: 201,
    amount: '100.00',
    replayed: null,
  });
  // The success is what the key keeps from now on.
  const again = await refund(merchant, other, body, { 'Idempotency-Key': whole });
  expect({ status: again.status, id: again.body.id, replayed: again.headers.get('idempotent-replayed') }).toEqual({
    status: 201,
    id: after.body.id,
    replayed: 'true',
  });
  await expectLedgerClean(sys);
});
