import { execFile } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { PUBLIC_EVENT_ID } from '@pl/contracts';
import { eventually } from '@pl/testing';
import { expectError, type ApiResponse } from '../support/http';
import { scrapedSum } from '../support/metrics';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

const ROOT = join(__dirname, '..', '..');
const WEBHOOK_SECRET = 'merchant-webhook-secret-for-tests';
const MERCHANT_ONLY = ['merchant_credit', 'platform_revenue', 'fee_percent_bp', 'order_id'];

let sys: TestSystem;
let receiver: WebhookReceiver;
let merchant: TestMerchant;
/** fee_payer split, crypto 100 bps, SBP 300 bps, webhooks signed. */
let shop: TestShop;

beforeAll(async () => {
  sys = await startSystem();
  receiver = await WebhookReceiver.start();
  merchant = await sys.merchant();
  shop = await sys.shop(merchant.id, {
    feePayer: 'split',
    cryptoBps: 100,
    sbpBps: 300,
    webhookUrl: receiver.url,
    webhookSecret: WEBHOOK_SECRET,
  });
});
afterAll(async () => {
  await sys?.stop();
  await receiver?.close();
});

const createLink = async (s: TestShop = shop, who: TestMerchant = merchant, amount = '1000.00'): Promise<string> => {
  const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: s.id, amount, order_id: `order-${randomUUID()}` }, { headers: who.keys });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const getLink = (id: string, who: TestMerchant = merchant): Promise<ApiResponse> =>
  sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: who.keys });
const select = (id: string, body: unknown): Promise<ApiResponse> => sys.http.post(`/p/${id}/select`, body);
/** The events written for a link, oldest first (every state change has one, docs/webhooks.md, "Event types"). */
const outboxEvents = async (linkId: string): Promise<string[]> =>
  (await sys.sql<{ event: string }>("SELECT payload->>'event' AS event FROM links.outbox WHERE message_key = $1 ORDER BY created_at", [linkId])).map(
    (r) => r.event,
  );
const outboxRows = async (linkId: string): Promise<number> => (await outboxEvents(linkId)).length;

/**
 * Proves a webhook did NOT go out without sleeping: another link of the same shop is paid and its
 * webhook awaited; the pipeline (outbox relay, Kafka, notifier) had its chance for the first link too.
 */
const barrier = async (): Promise<void> => {
  const other = await createLink();
  expect((await sys.providerCallback(sandboxPaymentId(other), 'paid')).status).toBe(200);
  await receiver.nthFor(other, 1);
};

describe('POST /p/{id}/select', () => {
  it('selects a crypto network: sandbox payment fields filled, crypto rate kept, merchant-only fields hidden', async () => {
    const id = await createLink();
    const res = await select(id, { method: 'crypto', network: 'USDT-TRC20' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: 'pending',
      fee_bps: 100,
      amount: '1000.00',
      payer_amount: '1005.00',
      to_currency: 'USDT',
      payer_currency: 'USDT',
      network: 'USDT-TRC20',
      gateway_provider: 'sandbox',
      gateway_payment_id: sandboxPaymentId(id),
      shop_name: 'Test shop',
    });
    expect(res.body.payer_crypto_amount).toMatch(/^\d+\.\d+$/);
    expect(res.body.deposit_address).toEqual(expect.any(String));
    expect(res.body.qr).toEqual(expect.any(String));
    for (const field of MERCHANT_ONLY) expect(res.body).not.toHaveProperty(field);
    // The merchant sees the same selection, with its own fields.
    const merchantView = (await getLink(id)).body;
    expect(merchantView).toMatchObject({
      network: 'USDT-TRC20',
      deposit_address: res.body.deposit_address,
      merchant_credit: '995.00',
      platform_revenue: '10.00',
    });
  });

  it('selects SBP: the SBP rate replaces the crypto rate and the three amounts are recomputed; re-selecting crypto restores them', async () => {
    const id = await createLink();
    const sbp = await select(id, { method: 'sbp' });
    expect(sbp.status).toBe(200);
    expect(sbp.body).toMatchObject({
      fee_bps: 300,
      payer_amount: '1015.00',
      to_currency: 'RUB',
      payer_currency: 'RUB',
      network: 'SBP',
      payer_crypto_amount: null,
      gateway_provider: 'sandbox',
    });
    for (const field of MERCHANT_ONLY) expect(sbp.body).not.toHaveProperty(field);
    expect((await getLink(id)).body).toMatchObject({ fee_bps: 300, payer_amount: '1015.00', merchant_credit: '985.00', platform_revenue: '30.00' });

    const crypto = await select(id, { method: 'crypto', network: 'BTC-BTC' });
    expect(crypto.body).toMatchObject({ fee_bps: 100, payer_amount: '1005.00', to_currency: 'BTC', network: 'BTC-BTC' });
    expect((await getLink(id)).body).toMatchObject({ merchant_credit: '995.00', platform_revenue: '10.00' });
  });

  it('answers 400 for an unknown network, 404 for a non-UUID or unknown id, and 409 on a canceled link', async () => {
    const id = await createLink();
    expectError(await select(id, { method: 'crypto', network: 'DOGE-DOGE' }), 400, 'common.err.validation_failed');
    expectError(await select('not-a-link', { method: 'sbp' }), 404, 'common.err.not_found');
    expectError(await select(randomUUID(), { method: 'sbp' }), 404, 'common.err.not_found');
    expect((await sys.http.post(`/merchant/v1/payment-links/${id}/cancel`, {}, { headers: merchant.keys })).status).toBe(200);
    expectError(await select(id, { method: 'sbp' }), 409, 'payment_link.err.not_pending');
    expect((await getLink(id)).body).toMatchObject({ status: 'canceled', network: null });
  });
});

describe('POST /callbacks/v1/sandbox', () => {
  it('answers 401 to a wrong or missing signature and leaves the link pending', async () => {
    const id = await createLink();
    expectError(
      await sys.providerCallback(sandboxPaymentId(id), 'paid', { signWith: 'not-the-provider-secret-0123456789' }),
      401,
      'common.err.unauthorized',
    );
    expectError(await sys.providerCallback(sandboxPaymentId(id), 'paid', { signature: null }), 401, 'common.err.unauthorized');
    expect((await getLink(id)).body).toMatchObject({ status: 'pending', paid_at: null });
    expect(await outboxRows(id)).toBe(0);
  });

  it('pays the link and delivers exactly one signed payment.succeeded webhook', async () => {
    const id = await createLink();
    const res = await sys.providerCallback(sandboxPaymentId(id), 'paid');
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { received: true } });
    const link = (await getLink(id)).body;
    expect(link).toMatchObject({ status: 'paid', paid_at: expect.stringMatching(/\+03:00$/) });

    const hit = await receiver.nthFor(id, 1);
    expect(hit.json).toEqual({
      event: 'payment.succeeded',
      // The event's public id (= the webhook-id header) and when the move happened (= the link's paid_at).
      event_id: expect.stringMatching(PUBLIC_EVENT_ID),
      created_at: link.paid_at,
      livemode: true,
      data: {
        payment_link_id: id,
        id,
        shop_id: shop.id,
        order_id: link.order_id,
        amount: '1000.00',
        merchant_credit: '995.00',
        status: 'paid',
        paid_at: link.paid_at,
      },
    });
    const h = hit.headers;
    const hex = createHmac('sha256', WEBHOOK_SECRET).update(hit.body).digest('hex');
    expect(h['content-type']).toMatch(/^application\/json/);
    expect({ event: h['x-webhook-event'], service: h['service-event'] }).toEqual({ event: 'payment.succeeded', service: 'payment.succeeded' });
    expect({ sig: h['x-webhook-signature'], service: h['service-signature'] }).toEqual({ sig: hex, service: hex });
    expect(h['x-webhook-attempt']).toBe('1');
    expect(h['x-webhook-id']).toBe(hit.json.event_id);
    expect(h['webhook-id']).toBe(h['x-webhook-id']);
    expect(h['webhook-timestamp']).toBe(h['x-webhook-timestamp']);
    const standard = new Webhook(`whsec_${Buffer.from(WEBHOOK_SECRET, 'utf8').toString('base64')}`);
    expect(() =>
      standard.verify(hit.body.toString('utf8'), {
        'webhook-id': String(h['webhook-id']),
        'webhook-timestamp': String(h['webhook-timestamp']),
        'webhook-signature': String(h['webhook-signature']),
      }),
    ).not.toThrow();

    // The same callback again: 200, nothing changes, no second event or webhook.
    const again = await sys.providerCallback(sandboxPaymentId(id), 'paid');
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { received: true } });
    const failedAfterPaid = await sys.providerCallback(sandboxPaymentId(id), 'failed');
    expect(failedAfterPaid.status).toBe(200);
    expect((await getLink(id)).body).toEqual(link);
    expect(await outboxRows(id)).toBe(1);
    await barrier();
    expect(receiver.hitsFor(id)).toHaveLength(1);
  });

  it('settles a link whose buyer selected SBP through the stored payment id, at the SBP amounts', async () => {
    const id = await createLink();
    const selected = (await select(id, { method: 'sbp' })).body;
    expect((await sys.providerCallback(selected.gateway_payment_id, 'paid')).status).toBe(200);
    expect((await getLink(id)).body).toMatchObject({ status: 'paid', network: 'SBP', merchant_credit: '985.00' });
    expect((await receiver.nthFor(id, 1)).json.data.merchant_credit).toBe('985.00');
  });

  it('moves a link to failed on a failed callback and sends no webhook to a shop of the default subscription', async () => {
    const id = await createLink();
    expect((await sys.providerCallback(sandboxPaymentId(id), 'failed')).body).toEqual({ received: true });
    expect((await getLink(id)).body).toMatchObject({ status: 'failed', paid_at: null });
    expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
    expect((await getLink(id)).body.status).toBe('failed');
    // The move has its event (for the events API), the paid after it its late record's; the shop is sent
    // payment.succeeded only.
    expect(await outboxEvents(id)).toEqual(['payment.failed', 'unresolved_payment.created']);
    await barrier();
    expect(receiver.hitsFor(id)).toHaveLength(0);
  });

  it('answers 200 for a payment no link has, changing nothing (the gateway counts it for operators)', async () => {
    const before = await sys.sql<{ n: string }>('SELECT count(*) AS n FROM links.unresolved_payments');
    for (const id of [sandboxPaymentId(randomUUID()), 'sbx_nonsense']) {
      const res = await sys.providerCallback(id, 'paid');
      expect(res.status).toBe(200);
    }
    expect(await sys.sql<{ n: string }>('SELECT count(*) AS n FROM links.unresolved_payments')).toEqual(before);
  });

  it('sends no signature headers for a shop without a webhook secret', async () => {
    const plain = await sys.shop(merchant.id, { webhookUrl: receiver.url });
    const id = await createLink(plain);
    expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
    const { headers } = await receiver.nthFor(id, 1);
    expect(headers['x-webhook-event']).toBe('payment.succeeded');
    for (const name of ['x-webhook-signature', 'service-signature', 'webhook-signature']) expect(headers).not.toHaveProperty(name);
  });
});

describe('expiry', () => {
  it('reads a due link as expired and refuses to select or cancel it', async () => {
    const id = await createLink();
    await sys.sql(
      "UPDATE links.payment_links SET created_at = now() - interval '2 minutes', expires_at = now() - interval '1 second' WHERE id = $1",
      [id],
    );
    expect((await getLink(id)).body.status).toBe('expired');
    expectError(await select(id, { method: 'sbp' }), 409, 'payment_link.err.not_pending');
    expectError(await sys.http.post(`/merchant/v1/payment-links/${id}/cancel`, {}, { headers: merchant.keys }), 409, 'payment_link.err.not_pending');
    const listed = await sys.http.get(`/merchant/v1/payment-links?status=pending&shop_id=${shop.id}`, { headers: merchant.keys });
    expect(listed.body.payment_links.map((l: { id: string }) => l.id)).not.toContain(id);
  });
});

describe('delivery log', () => {
  it('lists a delivery with its failed and successful attempts, and a resend starts a new series with the same webhook id', async () => {
    const flaky = await WebhookReceiver.start({ status: (n) => (n <= 2 ? 500 : 200) });
    try {
      const flakyShop = await sys.shop(merchant.id, { webhookUrl: flaky.url, webhookSecret: WEBHOOK_SECRET });
      const id = await createLink(flakyShop);
      expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
      const first = await flaky.nthFor(id, 3);
      expect([1, 2, 3].map((n) => flaky.hitsFor(id)[n - 1]?.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);

      const log = await waitForDelivery(id, merchant, (d) => d.status === 'succeeded');
      expect(log).toMatchObject({
        webhook_id: first.headers['x-webhook-id'],
        payment_link_id: id,
        event: 'payment.succeeded',
        status: 'succeeded',
      });
      expect(log.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([
        [1, 500],
        [2, 500],
        [3, 200],
      ]);
      for (const a of log.attempts)
        expect(a).toEqual({
          attempt: a.attempt,
          at: expect.stringMatching(/\+03:00$/),
          status_code: a.status_code,
          error: null,
          duration_ms: expect.any(Number),
        });

      const resent = await sys.http.post(`/merchant/v1/webhook-deliveries/${log.id}/resend`, undefined, { headers: merchant.keys });
      expect(resent.status).toBe(202);
      expect(resent.body).toMatchObject({ id: log.id, webhook_id: log.webhook_id });
      const again = await flaky.nthFor(id, 4);
      expect(again.headers['x-webhook-id']).toBe(first.headers['x-webhook-id']);
      expect(again.headers['x-webhook-attempt']).toBe('1');
      expect(again.body.equals(first.body)).toBe(true);

      const stranger = await sys.merchant();
      expectError(
        await sys.http.post(`/merchant/v1/webhook-deliveries/${log.id}/resend`, {}, { headers: stranger.keys }),
        403,
        'common.err.forbidden',
      );
      expectError(
        await sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${id}`, { headers: stranger.keys }),
        403,
        'common.err.forbidden',
      );
      expect((await sys.http.get('/merchant/v1/webhook-deliveries', { headers: stranger.keys })).body).toEqual({
        deliveries: [],
        has_more: false,
        next_cursor: null,
      });
      expectError(
        await sys.http.post(`/merchant/v1/webhook-deliveries/${randomUUID()}/resend`, {}, { headers: merchant.keys }),
        404,
        'common.err.not_found',
      );
    } finally {
      await flaky.close();
    }
  });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
/** The operators' CLI against this system. */
const admin = (args: string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['tools/admin/src/main.ts', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, ...sys.env } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });

describe('admin payment:confirm', () => {
  it('pays a pending link through the callback path (webhook included), then refuses a second confirm with 409', async () => {
    const id = await createLink();
    const run = await admin(['payment:confirm', '--link', id]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const printed = JSON.parse(run.stdout);
    expect(printed).toMatchObject({ id, status: 'paid', paid_at: expect.any(String), merchant_credit: '995.00' });
    expect((await getLink(id)).body).toEqual(printed);
    await receiver.nthFor(id, 1);

    const second = await admin(['payment:confirm', '--link', id, '--status', 'failed']);
    expect({ code: second.code === 0 ? 0 : 'non-zero', stdout: second.stdout }).toEqual({ code: 'non-zero', stdout: '' });
    expect(JSON.parse(second.stderr).error.code).toBe('payment_link.err.not_pending');
    expect((await getLink(id)).body).toEqual(printed);
  });

  it('fails a link with --status failed, and answers not_found for an unknown link', async () => {
    const id = await createLink();
    const run = await admin(['payment:confirm', '--link', id, '--status', 'failed']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id, status: 'failed', paid_at: null });
    const unknown = await admin(['payment:confirm', '--link', randomUUID()]);
    expect(unknown.code).not.toBe(0);
    expect(JSON.parse(unknown.stderr).error.code).toBe('common.err.not_found');
  });
});

describe('late payments', () => {
  const lateRows = (linkId: string) =>
    sys.sql<{ link_status: string; provider: string; gateway_payment_id: string; payer_amount: string }>(
      'SELECT link_status, provider, gateway_payment_id, payer_amount FROM links.unresolved_payments WHERE link_id = $1',
      [linkId],
    );

  it('a paid callback for an expired link is answered 200, changes nothing, sends no webhook, and is recorded, counted and listed once', async () => {
    const id = await createLink();
    expect((await select(id, { method: 'sbp' })).status).toBe(200);
    await sys.sql(
      "UPDATE links.payment_links SET created_at = now() - interval '2 minutes', expires_at = now() - interval '1 second' WHERE id = $1",
      [id],
    );
    const expired = (await getLink(id)).body;
    expect(expired).toMatchObject({ status: 'expired', payer_amount: '1015.00', paid_at: null });
    const before = await scrapedSum(sys.linksOpsPort, 'late_payments_total', { link_status: 'expired' });
    const since = new Date(Date.now() - 1000).toISOString();

    // The provider took the buyer's money and says so, and says it again (as providers retry).
    for (let i = 0; i < 3; i += 1) expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).body).toEqual({ received: true });

    expect((await getLink(id)).body).toEqual(expired);
    expect(await lateRows(id)).toEqual([
      { link_status: 'expired', provider: 'sandbox', gateway_payment_id: sandboxPaymentId(id), payer_amount: '101500' },
    ]);
    expect((await scrapedSum(sys.linksOpsPort, 'late_payments_total', { link_status: 'expired' })) - before).toBe(1);
    // The expiry's event (read past expires_at) and the late record's, which the default subscription does not send.
    expect(await outboxEvents(id)).toEqual(['payment_link.expired', 'unresolved_payment.created']);
    await barrier();
    expect(receiver.hitsFor(id)).toHaveLength(0);

    const run = await admin(['payment:late', '--since', since]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const listed = (JSON.parse(run.stdout) as { late_payments: { link_id: string }[] }).late_payments.filter((l) => l.link_id === id);
    expect(listed).toEqual([
      {
        id: expect.any(String),
        link_id: id,
        link_status: 'expired',
        merchant_id: merchant.id,
        shop_id: shop.id,
        order_id: expired.order_id,
        provider: 'sandbox',
        gateway_payment_id: sandboxPaymentId(id),
        payer_amount: '1015.00',
        received_at: expect.stringMatching(/\+03:00$/),
      },
    ]);
  });

  it('a paid callback for a canceled link is recorded with the state it met; the one that paid a link, repeated, is not', async () => {
    const canceled = await createLink();
    expect((await sys.http.post(`/merchant/v1/payment-links/${canceled}/cancel`, {}, { headers: merchant.keys })).status).toBe(200);
    expect((await sys.providerCallback(sandboxPaymentId(canceled), 'paid')).status).toBe(200);
    expect((await getLink(canceled)).body.status).toBe('canceled');
    expect(await lateRows(canceled)).toEqual([expect.objectContaining({ link_status: 'canceled', payer_amount: '100500' })]);

    const paid = await createLink();
    expect((await sys.providerCallback(sandboxPaymentId(paid), 'paid')).status).toBe(200);
    expect((await sys.providerCallback(sandboxPaymentId(paid), 'paid')).status).toBe(200);
    expect(await lateRows(paid)).toEqual([]);
    await receiver.nthFor(paid, 1);
  });
});

/**
 * The delivery log row of a link once it satisfies `done`. The webhook reaches the receiver before the
 * notifier records the attempt, so the log is read until the record lands (bounded; not a sleep-and-hope).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary JSON
async function waitForDelivery(linkId: string, who: TestMerchant, done: (d: any) => boolean): Promise<any> {
  let last: ApiResponse | undefined;
  await eventually(
    async () => {
      last = await sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${linkId}`, { headers: who.keys });
      expect(last.status).toBe(200);
      return last.body.deliveries.length === 1 && done(last.body.deliveries[0]);
    },
    () => `delivery of ${linkId} settles (last read: ${last?.text ?? 'none'})`,
    10_000,
    10,
  );
  return last?.body.deliveries[0];
}
