// Every payment status of Heleket that leaves a link pending or fails it, and Raiffeisen's DECLINED, through the real
// adapters against their local fakes, across the real gateway, links, shops and notifier, Postgres, NATS and Kafka
// (docs/providers.md, "Heleket" and "Raiffeisen SBP"): each signed callback reaches the gateway over HTTP, is answered
// 200, and leaves the link, its attempt, the outbox and the shop's webhooks as the spec says; a repeat changes nothing.
// (paid, paid_over, wrong_amount, locked: also live-providers and unresolved-payments; the checkout's view of
// confirm_check and wrong_amount_waiting: heleket-methods; refund_*: provider-refunds.)
import { EVENT_TYPES } from '@pl/contracts';
import { startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { createLiveLink } from '../support/live-links';

let sys: TestSystem;
let receiver: WebhookReceiver;
let merchant: TestMerchant;
let shop: TestShop;

beforeAll(async () => {
  [sys, receiver] = await Promise.all([startSystem({ providerFakes: true }), WebhookReceiver.start()]);
  merchant = await sys.merchant();
  shop = await sys.shop(merchant.id, { webhookUrl: receiver.url });
  // Every event type, so that a status that sends none is seen to send none (payment.failed is opt-in).
  const session = { Authorization: `Bearer ${await sys.login(merchant)}` };
  const opted = await sys.http.call('PATCH', `/api/v1/shops/${shop.id}`, { body: { webhook_events: [...EVENT_TYPES] }, headers: session });
  expect(opted.status).toBe(200);
});
afterAll(async () => {
  await receiver?.close();
  await sys?.stop();
});

const liveLink = (amount = '1500.00'): Promise<string> => createLiveLink(sys, merchant, shop, amount, 'st');
const link = async (id: string) => (await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys })).body;
const buyerView = async (id: string) => (await sys.http.get(`/p/${id}/status`)).body;

/** Selects USDT on TRON: the Heleket invoice of attempt `n`. */
const selectCrypto = async (id: string, n = 1): Promise<string> => {
  const res = await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' });
  expect(res.status).toBe(200);
  const invoice = sys.fakes.heleket.invoiceByOrder(`${id}-${n}`);
  if (!invoice) throw new Error('no invoice made');
  expect(res.body.gateway_payment_id).toBe(invoice.uuid);
  return invoice.uuid;
};
const selectSbp = async (id: string, n = 1): Promise<string> => {
  const res = await sys.http.post(`/p/${id}/select`, { method: 'sbp' });
  expect(res.status).toBe(200);
  const qr = sys.fakes.raiffeisen.qrOf(`${id}-${n}`);
  if (!qr) throw new Error('no QR registered');
  return qr.qrId;
};

/** Moves a Heleket invoice and resolves with the gateway's answer to its callback (links has done its part by then). */
const heleketSays = async (uuid: string, status: Parameters<typeof sys.fakes.heleket.setStatus>[1], amount: string | null = null) => {
  const before = sys.fakes.heleket.deliveries.length;
  sys.fakes.heleket.setStatus(uuid, status, amount);
  const delivered = await sys.fakes.heleket.deliveriesReach(before + 1);
  return delivered[before]?.answer;
};

const attempts = (id: string) =>
  sys.sql<{ n: number; state: string; provider_status: string | null }>(
    'SELECT n, state, provider_status FROM links.payment_attempts WHERE link_id = $1 ORDER BY n',
    [id],
  );
const events = (id: string) =>
  sys.sql<{ event: string; data: Record<string, unknown> }>(
    "SELECT payload->>'event' AS event, payload->'data' AS data FROM links.outbox WHERE message_key = $1 ORDER BY created_at, id",
    [id],
  );
const unresolved = (id: string) => sys.sql('SELECT reason FROM links.unresolved_payments WHERE link_id = $1', [id]);
const postings = (id: string) => sys.sql('SELECT type FROM links.ledger_transactions WHERE payment_link_id = $1', [id]);
const webhooksOf = (id: string) => receiver.hits.filter((h) => h.json?.data?.payment_link_id === id || h.json?.data?.id === id);

describe('Heleket statuses that leave the link pending', () => {
  it('check and process: 200, the link pending with no event; process shows the payment as seen, check shows nothing yet', async () => {
    const id = await liveLink();
    const uuid = await selectCrypto(id);
    expect(await heleketSays(uuid, 'check')).toBe(200);
    expect(await link(id)).toMatchObject({ status: 'pending', gateway_payment_id: uuid, failure_reason: null });
    expect(await attempts(id)).toEqual([{ n: 1, state: 'pending', provider_status: 'check' }]);
    expect((await buyerView(id)).payment_progress).toBeNull();

    expect(await heleketSays(uuid, 'process')).toBe(200);
    expect(await link(id)).toMatchObject({ status: 'pending', failure_reason: null });
    expect(await attempts(id)).toEqual([{ n: 1, state: 'pending', provider_status: 'process' }]);
    expect((await buyerView(id)).payment_progress).toEqual({ status: 'confirming', remaining_crypto_amount: null });

    // Then it pays: one payment.succeeded, and it is the only event the link ever had.
    const succeeded = receiver.waitFor((h) => h.json?.event === 'payment.succeeded' && h.json?.data?.payment_link_id === id);
    expect(await heleketSays(uuid, 'paid', sys.fakes.heleket.invoices.get(uuid)!.payerAmount)).toBe(200);
    await succeeded;
    expect((await events(id)).map((e) => e.event)).toEqual(['payment.succeeded']);
    expect(await attempts(id)).toEqual([{ n: 1, state: 'paid', provider_status: 'paid' }]);
  });

  it('confirm_check and wrong_amount_waiting: the link pending with no event; the rest arrives, paid, and the shop hears payment.succeeded once', async () => {
    const id = await liveLink('900.00');
    const uuid = await selectCrypto(id);
    const asked = sys.fakes.heleket.invoices.get(uuid)!.payerAmount;
    expect(await heleketSays(uuid, 'confirm_check', asked)).toBe(200);
    expect(await attempts(id)).toEqual([{ n: 1, state: 'pending', provider_status: 'confirm_check' }]);
    expect(await heleketSays(uuid, 'wrong_amount_waiting', '1.000000')).toBe(200);
    expect(await attempts(id)).toEqual([{ n: 1, state: 'pending', provider_status: 'wrong_amount_waiting' }]);
    expect(await link(id)).toMatchObject({ status: 'pending', failure_reason: null });
    expect(await events(id)).toEqual([]);
    expect(webhooksOf(id)).toEqual([]);

    const succeeded = receiver.waitFor((h) => h.json?.event === 'payment.succeeded' && h.json?.data?.payment_link_id === id);
    expect(await heleketSays(uuid, 'paid', asked)).toBe(200);
    expect((await succeeded).json.data).toMatchObject({ status: 'paid', amount: '900.00' });
    expect((await events(id)).map((e) => e.event)).toEqual(['payment.succeeded']);
    expect(await attempts(id)).toEqual([{ n: 1, state: 'paid', provider_status: 'paid' }]);
    expect(await unresolved(id)).toEqual([]);
  });

  it('cancel: the attempt ended unpaid, the link stays pending with no event; the buyer selects again and pays', async () => {
    const id = await liveLink();
    const first = await selectCrypto(id, 1);
    expect(await heleketSays(first, 'cancel')).toBe(200);
    expect(await link(id)).toMatchObject({ status: 'pending', failure_reason: null });
    expect(await attempts(id)).toEqual([{ n: 1, state: 'ended_unpaid', provider_status: 'cancel' }]);
    expect(await events(id)).toEqual([]);
    // Its repeat changes nothing.
    expect(await heleketSays(first, 'cancel')).toBe(200);
    expect(await attempts(id)).toEqual([{ n: 1, state: 'ended_unpaid', provider_status: 'cancel' }]);

    const second = await selectCrypto(id, 2);
    expect(second).not.toBe(first);
    const succeeded = receiver.waitFor((h) => h.json?.event === 'payment.succeeded' && h.json?.data?.payment_link_id === id);
    sys.fakes.heleket.pay(second);
    expect((await succeeded).json.data).toMatchObject({ payment_link_id: id, status: 'paid' });
    expect(await link(id)).toMatchObject({ status: 'paid', gateway_payment_id: second });
    expect((await attempts(id)).map((a) => a.state)).toEqual(['ended_unpaid', 'paid']);
    expect((await events(id)).map((e) => e.event)).toEqual(['payment.succeeded']);
    expect(await unresolved(id)).toEqual([]);
  });
});

describe("Heleket cancel and the link's own expiry", () => {
  it('a canceled invoice leaves the link pending until its expires_at, when it expires as any link does (payment_link.expired)', async () => {
    const id = await liveLink();
    const uuid = await selectCrypto(id);
    expect(await heleketSays(uuid, 'cancel')).toBe(200);
    expect(await link(id)).toMatchObject({ status: 'pending' });
    // Its time comes (the sweeper moves it; a read already says so).
    await sys.sql(
      "UPDATE links.payment_links SET created_at = now() - interval '2 minutes', expires_at = now() - interval '1 second' WHERE id = $1",
      [id],
    );
    const expired = receiver.waitFor((h) => h.json?.event === 'payment_link.expired' && h.json?.data?.payment_link_id === id);
    expect((await expired).json.data).toMatchObject({ status: 'expired' });
    expect(await link(id)).toMatchObject({ status: 'expired', failure_reason: null });
    expect((await events(id)).map((e) => e.event)).toEqual(['payment_link.expired']);
    expect(await attempts(id)).toEqual([{ n: 1, state: 'ended_unpaid', provider_status: 'cancel' }]);
  });
});

describe.each(['fail', 'system_fail'] as const)('Heleket %s', (status) => {
  it('fails the link provider_failed: payment.failed with failure_reason reaches the shop, nothing is posted or left unresolved; a repeat changes nothing', async () => {
    const id = await liveLink();
    const uuid = await selectCrypto(id);
    const failed = receiver.waitFor((h) => h.json?.event === 'payment.failed' && h.json?.data?.payment_link_id === id);
    expect(await heleketSays(uuid, status)).toBe(200);
    const hit = await failed;
    expect(hit.json.data).toMatchObject({ payment_link_id: id, status: 'failed', failure_reason: 'provider_failed' });
    expect(await link(id)).toMatchObject({ status: 'failed', failure_reason: 'provider_failed', gateway_provider: 'heleket' });
    expect(await attempts(id)).toEqual([{ n: 1, state: 'failed', provider_status: status }]);
    expect(await unresolved(id)).toEqual([]);
    expect(await postings(id)).toEqual([]);

    expect(await heleketSays(uuid, status)).toBe(200);
    const written = await events(id);
    expect(written.map((e) => e.event)).toEqual(['payment.failed']);
    expect(written[0]?.data).toMatchObject({ failure_reason: 'provider_failed' });
    // A failed link takes no other method.
    expect((await sys.http.post(`/p/${id}/select`, { method: 'sbp' })).status).toBe(409);
    expect(webhooksOf(id).map((h) => h.json.event)).toEqual(['payment.failed']);
  });
});

describe('Heleket fail of an attempt the link no longer shows', () => {
  it('fails only that attempt: the link stays pending on the newer one, no event', async () => {
    const id = await liveLink();
    const first = await selectCrypto(id, 1);
    const qrId = await selectSbp(id, 2);
    expect(await heleketSays(first, 'fail')).toBe(200);
    expect(await link(id)).toMatchObject({ status: 'pending', gateway_payment_id: qrId, failure_reason: null });
    expect((await attempts(id)).map((a) => [a.state, a.provider_status])).toEqual([
      ['failed', 'fail'],
      ['pending', null],
    ]);
    expect(await events(id)).toEqual([]);
  });
});

describe('Raiffeisen DECLINED', () => {
  it("fails the attempt (its own state, not the link's), leaves the link pending with no event; the buyer pays with a new attempt", async () => {
    const id = await liveLink('1259.19');
    const first = await selectSbp(id, 1);
    const [declined] = await sys.fakes.raiffeisen.decline(first);
    expect(declined?.status).toBe(200);
    expect(await link(id)).toMatchObject({ status: 'pending', failure_reason: null });
    expect(await attempts(id)).toEqual([{ n: 1, state: 'failed', provider_status: 'DECLINED' }]);
    expect(await events(id)).toEqual([]);
    // The bank repeats it: 200, nothing changes.
    const [again] = await sys.fakes.raiffeisen.redeliver(first);
    expect(again?.status).toBe(200);
    expect((await attempts(id)).map((a) => a.state)).toEqual(['failed']);

    const second = await selectSbp(id, 2);
    const succeeded = receiver.waitFor((h) => h.json?.event === 'payment.succeeded' && h.json?.data?.payment_link_id === id);
    const [paid] = await sys.fakes.raiffeisen.pay(second);
    expect(paid?.status).toBe(200);
    expect((await succeeded).json.data).toMatchObject({ status: 'paid', amount: '1259.19' });
    expect(await link(id)).toMatchObject({ status: 'paid', gateway_provider: 'raiffeisen_sbp', gateway_payment_id: second });
    expect((await attempts(id)).map((a) => a.state)).toEqual(['failed', 'paid']);
    expect((await events(id)).map((e) => e.event)).toEqual(['payment.succeeded']);
  });
});
