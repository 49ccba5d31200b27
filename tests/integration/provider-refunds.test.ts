// Refunds at both live providers through the real adapters against their local fakes, across the real gateway,
// links, shops and notifier, Postgres, NATS and Kafka (docs/providers.md, "Refunds"): recorded and posted first, then
// sent to the provider (Heleket signed with the payout key, `amount` in RUB or omitted for a whole refund;
// Raiffeisen under our refund id), then settled by the provider's word: Heleket's refund_process / refund_paid /
// refund_fail callbacks, Raiffeisen's refund status read by sync. A failure gives the shop its money back in the
// same transaction; each outcome is one event and one webhook however often the provider repeats it.
// (A refund whose callback is lost, at either provider: status-sync.test.ts.)
import { randomUUID } from 'node:crypto';
import { EVENT_TYPES } from '@pl/contracts';
import { eventually } from '@pl/testing';
import { verifyLedger } from '../support/money';
import { startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { createLiveLink } from '../support/live-links';

const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

let sys: TestSystem;
let receiver: WebhookReceiver;
let merchant: TestMerchant;
let shop: TestShop;

beforeAll(async () => {
  [sys, receiver] = await Promise.all([
    // Sync reads every few milliseconds: Raiffeisen says a refund's outcome only when asked.
    startSystem({ providerFakes: true, env: { PROVIDER_SYNC_FIRST_DELAY_MS: '30', PROVIDER_SYNC_INTERVAL_MS: '30' } }),
    WebhookReceiver.start(),
  ]);
  merchant = await sys.merchant();
  shop = await sys.shop(merchant.id, { webhookUrl: receiver.url });
  const session = { Authorization: `Bearer ${await sys.login(merchant)}` };
  const opted = await sys.http.call('PATCH', `/api/v1/shops/${shop.id}`, { body: { webhook_events: [...EVENT_TYPES] }, headers: session });
  expect(opted.status).toBe(200);
});
afterAll(async () => {
  await receiver?.close();
  await sys?.stop();
});
afterEach(() => {
  sys.fakes.raiffeisen.refundOutcome = 'IN_PROGRESS';
});

const liveLink = (amount: string): Promise<string> => createLiveLink(sys, merchant, shop, amount, 'rf');
const paid = (id: string) => receiver.waitFor((h) => h.json?.event === 'payment.succeeded' && h.json?.data?.payment_link_id === id);

/** A live crypto link paid at Heleket: the link id and its invoice uuid. */
const paidCrypto = async (amount: string): Promise<{ id: string; uuid: string }> => {
  const id = await liveLink(amount);
  expect((await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' })).status).toBe(200);
  const uuid = sys.fakes.heleket.invoiceByOrder(`${id}-1`)!.uuid;
  const succeeded = paid(id);
  sys.fakes.heleket.pay(uuid);
  await succeeded;
  return { id, uuid };
};
/** A live SBP link paid at Raiffeisen: the link id and its QR id. */
const paidSbp = async (amount: string): Promise<{ id: string; qrId: string }> => {
  const id = await liveLink(amount);
  expect((await sys.http.post(`/p/${id}/select`, { method: 'sbp' })).status).toBe(200);
  const qrId = sys.fakes.raiffeisen.qrOf(`${id}-1`)!.qrId;
  const succeeded = paid(id);
  expect((await sys.fakes.raiffeisen.pay(qrId)).map((d) => d.status)).toEqual([200]);
  await succeeded;
  return { id, qrId };
};

const refund = (id: string, body: Record<string, unknown>) =>
  sys.http.post(`/merchant/v1/payment-links/${id}/refunds`, body, { headers: { ...merchant.keys, 'Idempotency-Key': randomUUID() } });
const readRefund = async (refundId: string) => (await sys.http.get(`/merchant/v1/refunds/${refundId}`, { headers: merchant.keys })).body;
const available = async (): Promise<string> =>
  (await sys.http.get(`/merchant/v1/balance?shop_id=${shop.id}`, { headers: merchant.keys })).body.available as string;
const refundEvents = async (refundId: string) =>
  sys.sql<{ event: string; data: Record<string, unknown> }>(
    "SELECT payload->>'event' AS event, payload->'data' AS data FROM links.outbox WHERE payload->'data'->>'id' = $1 ORDER BY created_at",
    [refundId],
  );
const postings = async (refundId: string) =>
  (await sys.sql<{ type: string }>('SELECT type FROM links.ledger_transactions WHERE refund_id = $1 ORDER BY created_at', [refundId])).map(
    (r) => r.type,
  );
const refundWebhook = (refundId: string, event: string) => receiver.waitFor((h) => h.json?.event === event && h.json?.data?.id === refundId);
const refundWebhooks = (refundId: string) => receiver.hits.filter((h) => h.json?.data?.id === refundId).map((h) => h.json.event as string);

/** Moves a Heleket invoice and resolves with the gateway's answer to its callback. */
const heleketSays = async (uuid: string, status: 'refund_process' | 'refund_paid' | 'refund_fail') => {
  const before = sys.fakes.heleket.deliveries.length;
  sys.fakes.heleket.setStatus(uuid, status);
  const delivered = await sys.fakes.heleket.deliveriesReach(before + 1);
  return delivered[before]?.answer;
};

describe('a refund at Heleket', () => {
  it('partial: sent with the payout key and the RUB amount; refund_process keeps it pending, refund_paid succeeds it once', async () => {
    const { id, uuid } = await paidCrypto('2000.00');
    const before = Number(await available());
    const calls = sys.fakes.heleket.count('/v1/payment/refund');
    const res = await refund(id, { amount: '500.00', destination: TRON_ADDRESS });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', amount: '500.00', failure_reason: null });
    const refundId = res.body.id as string;
    expect(sys.fakes.heleket.count('/v1/payment/refund')).toBe(calls + 1);
    expect(sys.fakes.heleket.refunds.at(-1)).toEqual({ uuid, address: TRON_ADDRESS, amount: '500.00', isSubtract: true });
    expect(Number(await available())).toBeCloseTo(before - 500, 2);

    // The fake answered the refund with refund_process (its callback went out then); once more, by hand: still pending.
    expect(await heleketSays(uuid, 'refund_process')).toBe(200);
    expect(await readRefund(refundId)).toMatchObject({ status: 'pending' });

    const succeeded = refundWebhook(refundId, 'refund.succeeded');
    expect(await heleketSays(uuid, 'refund_paid')).toBe(200);
    expect((await succeeded).json.data).toMatchObject({ id: refundId, status: 'succeeded', amount: '500.00', payment_link_id: id });
    expect(await readRefund(refundId)).toMatchObject({ status: 'succeeded', failure_reason: null });
    // Heleket repeats it until it hears 2xx, and may go on doing so: 200, nothing new.
    expect(await heleketSays(uuid, 'refund_paid')).toBe(200);
    expect((await refundEvents(refundId)).map((e) => e.event)).toEqual(['refund.succeeded']);
    expect(await postings(refundId)).toEqual(['refund', 'refund_succeeded']);
    expect(Number(await available())).toBeCloseTo(before - 500, 2);
    const link = (await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys })).body;
    expect(link).toMatchObject({ status: 'paid', amount_refunded: '500.00' });
    expect(sys.fakes.heleket.count('/v1/payment/refund')).toBe(calls + 1);
    await eventually(async () => refundWebhooks(refundId).length === 1, 'one refund webhook', 5000, 50);
  });

  it('whole, then refund_fail: the amount is omitted, the refund fails with refund.failed and the shop has its money back', async () => {
    const { id, uuid } = await paidCrypto('1200.00');
    const before = await available();
    const res = await refund(id, { destination: TRON_ADDRESS });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', amount: '1200.00' });
    const refundId = res.body.id as string;
    expect(sys.fakes.heleket.refunds.at(-1)).toEqual({ uuid, address: TRON_ADDRESS, amount: null, isSubtract: true });

    const failed = refundWebhook(refundId, 'refund.failed');
    expect(await heleketSays(uuid, 'refund_fail')).toBe(200);
    // The same reason status sync gives when it reads refund_fail from payment/info.
    expect((await failed).json.data).toMatchObject({ id: refundId, status: 'failed', failure_reason: 'refund_fail' });
    expect(await readRefund(refundId)).toMatchObject({ status: 'failed', failure_reason: 'refund_fail' });
    expect(await available()).toBe(before);
    expect(await postings(refundId)).toEqual(['refund', 'refund_failed']);
    expect(await heleketSays(uuid, 'refund_fail')).toBe(200);
    expect((await refundEvents(refundId)).map((e) => e.event)).toEqual(['refund.failed']);
    const link = (await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys })).body;
    expect(link).toMatchObject({ status: 'paid', amount_refunded: '0.00' });
  });
});

describe('a refund at Raiffeisen', () => {
  it('COMPLETED at once: the refund succeeds on its answer, under our refund id, with one refund.succeeded', async () => {
    const { id } = await paidSbp('1000.00');
    sys.fakes.raiffeisen.refundOutcome = 'COMPLETED';
    const res = await refund(id, { amount: '250.50' });
    expect(res.status).toBe(201);
    const refundId = res.body.id as string;
    expect(res.body).toMatchObject({ status: 'succeeded', amount: '250.50', gateway_refund_id: refundId, failure_reason: null });
    const sent = sys.fakes.raiffeisen.requests.filter((r) => r.kind === 'refund' && r.body.includes(refundId));
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.body)).toMatchObject({ amount: 250.5, order: `${id}-1`, refundId });
    expect(sent[0]!.headers.authorization).toMatch(/^Bearer /);
    await refundWebhook(refundId, 'refund.succeeded');
    expect((await refundEvents(refundId)).map((e) => e.event)).toEqual(['refund.succeeded']);
    expect(await postings(refundId)).toEqual(['refund', 'refund_succeeded']);
  });

  it('DECLINED by the bank later: sync reads it, the refund fails with refund.failed once and the shop has its money back', async () => {
    const { id } = await paidSbp('1000.00');
    const before = await available();
    const res = await refund(id, { amount: '300.00' });
    expect(res.status).toBe(201);
    const refundId = res.body.id as string;
    expect(res.body).toMatchObject({ status: 'pending', gateway_refund_id: refundId });
    const failed = refundWebhook(refundId, 'refund.failed');
    sys.fakes.raiffeisen.settleRefund(refundId, 'DECLINED');
    expect((await failed).json.data).toMatchObject({ id: refundId, status: 'failed', failure_reason: 'DECLINED' });
    expect(await readRefund(refundId)).toMatchObject({ status: 'failed', failure_reason: 'DECLINED' });
    expect(await available()).toBe(before);
    expect(await postings(refundId)).toEqual(['refund', 'refund_failed']);
    expect(sys.fakes.raiffeisen.count('refund_info')).toBeGreaterThanOrEqual(1);
    // Sync stops reading a final refund; whatever it read after, one event.
    expect((await refundEvents(refundId)).map((e) => e.event)).toEqual(['refund.failed']);
    expect(sys.fakes.raiffeisen.requests.filter((r) => r.kind === 'refund' && r.body.includes(refundId))).toHaveLength(1);
  });

  it('leaves the ledger clean', async () => {
    expect(await verifyLedger(sys)).toEqual({ transactions: expect.any(Number), unbalanced: 0, balances_mismatched: 0 });
  });
});
