// Status sync (docs/providers.md, "Status sync"; ADR 0025) across the real gateway, links, shops and notifier,
// Postgres, NATS and Kafka, with the real Raiffeisen SBP and Heleket adapters against their local fakes over HTTP:
// a payment or a refund whose callback is lost is completed by reading its provider, through the callback's own
// path (one event, applied once), and a read racing the late callback applies once.
import { randomUUID } from 'node:crypto';
import { heleketProvider } from '@pl/providers';
import { eventually } from '@pl/testing';
import { runCli, renderOutcome } from '../../tools/admin/src/cli';
import { scrapedSum } from '../support/metrics';
import { startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { createLiveLink } from '../support/live-links';

// Two systems, each waiting for its notifier's first Kafka group join.
jest.setTimeout(60_000);

const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

interface World {
  sys: TestSystem;
  receiver: WebhookReceiver;
  merchant: TestMerchant;
  shop: TestShop;
}

async function startWorld(env: Record<string, string> = {}): Promise<World> {
  const [sys, receiver] = await Promise.all([startSystem({ providerFakes: true, env }), WebhookReceiver.start()]);
  const merchant = await sys.merchant();
  const shop = await sys.shop(merchant.id, { webhookUrl: receiver.url });
  return { sys, receiver, merchant, shop };
}

const liveLink = (w: World, amount = '1000.00'): Promise<string> => createLiveLink(w.sys, w.merchant, w.shop, amount, 'sync');

async function selectSbp(w: World, id: string): Promise<string> {
  const res = await w.sys.http.post(`/p/${id}/select`, { method: 'sbp' });
  expect(res.status).toBe(200);
  return res.body.gateway_payment_id as string;
}

async function selectCrypto(w: World, id: string): Promise<string> {
  const res = await w.sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' });
  expect(res.status).toBe(200);
  return res.body.gateway_payment_id as string;
}

const webhook = (w: World, linkId: string, event: string) =>
  w.receiver.waitFor((h) => h.json?.event === event && h.json?.data?.payment_link_id === linkId);

/** The events written for a link, oldest first: each is one webhook (the outbox feeds the notifier). */
const outboxEvents = async (w: World, key: string): Promise<string[]> =>
  (await w.sys.sql<{ event: string }>("SELECT payload->>'event' AS event FROM links.outbox WHERE message_key = $1 ORDER BY created_at", [key])).map(
    (r) => r.event,
  );

const attemptsOf = (w: World, linkId: string) =>
  w.sys.sql<{ n: number; state: string; gateway_payment_id: string | null }>(
    'SELECT n, state, gateway_payment_id FROM links.payment_attempts WHERE link_id = $1 ORDER BY n',
    [linkId],
  );

/** Waits for the refund's status to become `status` (a refund's webhook is opt-in: its row and outbox say it). */
const refundBecomes = (w: World, refundId: string, status: string) =>
  eventually(
    async () => (await w.sys.sql<{ status: string }>('SELECT status FROM links.refunds WHERE id = $1', [refundId]))[0]?.status === status,
    `refund ${refundId} ${status}`,
    30_000,
    50,
  );

const refundEvents = async (w: World, refundId: string): Promise<string[]> =>
  (
    await w.sys.sql<{ event: string }>("SELECT payload->>'event' AS event FROM links.outbox WHERE payload->'data'->>'id' = $1 ORDER BY created_at", [
      refundId,
    ])
  ).map((r) => r.event);

const latePayments = async (w: World, linkId: string): Promise<number> =>
  Number((await w.sys.sql<{ n: string }>('SELECT count(*) AS n FROM links.unresolved_payments WHERE link_id = $1', [linkId]))[0]?.n);

async function syncByAdmin(w: World, linkId: string): Promise<Record<string, unknown>> {
  const io = { readStdin: () => Promise.resolve(''), warn: () => undefined };
  const out = renderOutcome(await runCli(['payment:sync', '--link', linkId], { ...w.sys.env }, io));
  expect({ code: out.exitCode, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(out.stdout) as Record<string, unknown>;
}

describe('status sync every few milliseconds', () => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld({ PROVIDER_SYNC_FIRST_DELAY_MS: '30', PROVIDER_SYNC_INTERVAL_MS: '30' });
  });
  afterAll(async () => {
    await w?.receiver.close();
    await w?.sys.stop();
  });
  afterEach(() => {
    w.sys.fakes.raiffeisen.callbackMode = 'deliver';
    w.sys.fakes.heleket.callbackPolicy = { mode: 'send', delayMs: 0, repeat: 1 };
  });

  it('SBP: the bank drops the SUCCESS notification; sync reads payment-info and the link is paid with one payment.succeeded', async () => {
    const id = await liveLink(w, '1259.19');
    const qrId = await selectSbp(w, id);
    w.sys.fakes.raiffeisen.callbackMode = 'drop';
    const succeeded = webhook(w, id, 'payment.succeeded');
    const delivered = await w.sys.fakes.raiffeisen.pay(qrId);
    expect(delivered).toEqual([]);
    const hit = await succeeded;
    expect(hit.json.data).toMatchObject({ payment_link_id: id, status: 'paid', amount: '1259.19' });
    expect(await outboxEvents(w, id)).toEqual(['payment.succeeded']);
    expect(await attemptsOf(w, id)).toEqual([{ n: 1, state: 'paid', gateway_payment_id: qrId }]);
    expect(w.sys.fakes.raiffeisen.count('payment_info')).toBeGreaterThanOrEqual(1);
    expect(await latePayments(w, id)).toBe(0);
  });

  it('crypto: Heleket drops the paid callback; sync reads payment/info and the link is paid once', async () => {
    const id = await liveLink(w, '2500.00');
    const uuid = await selectCrypto(w, id);
    w.sys.fakes.heleket.callbackPolicy = { mode: 'drop', delayMs: 0, repeat: 1 };
    const succeeded = webhook(w, id, 'payment.succeeded');
    w.sys.fakes.heleket.pay(uuid);
    expect((await succeeded).json.data).toMatchObject({ payment_link_id: id, status: 'paid', amount: '2500.00' });
    expect(await outboxEvents(w, id)).toEqual(['payment.succeeded']);
    expect(await attemptsOf(w, id)).toEqual([{ n: 1, state: 'paid', gateway_payment_id: uuid }]);
  });

  it('callbacks and sync race on five links at once: each link is paid once, with one event and no late payment', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, () => liveLink(w, '300.00')));
    const qrs = await Promise.all(ids.map((id) => selectSbp(w, id)));
    const hits = ids.map((id) => webhook(w, id, 'payment.succeeded'));
    // The notifications go out while sync reads the same QRs every 30 ms.
    const deliveries = await Promise.all(qrs.map((qr) => w.sys.fakes.raiffeisen.pay(qr, { repeat: 1 })));
    for (const d of deliveries.flat()) expect(d.status).toBe(200);
    await Promise.all(hits);
    for (const id of ids) {
      expect(await outboxEvents(w, id)).toEqual(['payment.succeeded']);
      expect((await attemptsOf(w, id)).map((a) => a.state)).toEqual(['paid']);
      expect(await latePayments(w, id)).toBe(0);
    }
  });

  it('SBP refund: the bank completes it and says nothing; sync reads it and the refund succeeds once', async () => {
    const id = await liveLink(w, '1000.00');
    const qrId = await selectSbp(w, id);
    const paid = webhook(w, id, 'payment.succeeded');
    await w.sys.fakes.raiffeisen.pay(qrId);
    await paid;
    const res = await w.sys.http.post(`/merchant/v1/payment-links/${id}/refunds`, { amount: '100.00' }, { headers: w.merchant.keys });
    expect(res.status).toBe(201);
    const refundId = res.body.id as string;
    expect(res.body).toMatchObject({ status: 'pending', gateway_refund_id: refundId, failure_reason: null });
    w.sys.fakes.raiffeisen.settleRefund(refundId, 'COMPLETED');
    await refundBecomes(w, refundId, 'succeeded');
    expect(await refundEvents(w, refundId)).toEqual(['refund.succeeded']);
    expect(w.sys.fakes.raiffeisen.count('refund')).toBeGreaterThanOrEqual(1);
    expect(w.sys.fakes.raiffeisen.requests.filter((r) => r.kind === 'refund' && r.body.includes(refundId))).toHaveLength(1);
  });

  it('crypto refund: Heleket drops the refund_paid callback; sync reads payment/info and the refund succeeds once', async () => {
    const id = await liveLink(w, '2000.00');
    const uuid = await selectCrypto(w, id);
    const paid = webhook(w, id, 'payment.succeeded');
    w.sys.fakes.heleket.pay(uuid);
    await paid;
    const res = await w.sys.http.post(
      `/merchant/v1/payment-links/${id}/refunds`,
      { amount: '500.00', destination: TRON_ADDRESS },
      { headers: w.merchant.keys },
    );
    expect(res.status).toBe(201);
    const refundId = res.body.id as string;
    w.sys.fakes.heleket.callbackPolicy = { mode: 'drop', delayMs: 0, repeat: 1 };
    w.sys.fakes.heleket.setStatus(uuid, 'refund_paid');
    await refundBecomes(w, refundId, 'succeeded');
    expect(await refundEvents(w, refundId)).toEqual(['refund.succeeded']);
    expect(w.sys.fakes.heleket.refunds.filter((r) => r.uuid === uuid)).toHaveLength(1);
  });

  it('a canceled link cancels its unpaid SBP attempt at the bank (the QR is deleted) after the cancel committed', async () => {
    const id = await liveLink(w);
    const qrId = await selectSbp(w, id);
    const fake = w.sys.fakes.raiffeisen;
    const cancels = fake.count('cancel');
    const canceled = await w.sys.http.post(`/merchant/v1/payment-links/${id}/cancel`, {}, { headers: w.merchant.keys });
    expect(canceled.status).toBe(200);
    await fake.ledger.arrived('cancel', cancels + 1);
    expect(fake.requests.filter((r) => r.kind === 'cancel').at(-1)?.url).toContain(qrId);
    expect(fake.book.find(qrId).status).toBe('CANCELLED');
    // Canceled once: sync records it, and a QR that still reads unpaid after it ends the attempt.
    await eventually(
      async () => (await attemptsOf(w, id)).map((a) => a.state).join() === 'ended_unpaid',
      'the canceled attempt ended unpaid',
      20_000,
      50,
    );
    expect(fake.count('cancel')).toBe(cancels + 1);
  });
});

describe('payment:sync and callbacks for payments never made (sync at its production pace)', () => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld();
  });
  afterAll(async () => {
    await w?.receiver.close();
    await w?.sys.stop();
  });
  afterEach(() => {
    w.sys.fakes.raiffeisen.callbackMode = 'deliver';
    w.sys.fakes.heleket.callbackPolicy = { mode: 'send', delayMs: 0, repeat: 1 };
  });

  it('payment:sync reads a link whose callback was held, pays it and prints what changed; a second run changes nothing', async () => {
    const id = await liveLink(w, '777.00');
    const qrId = await selectSbp(w, id);
    w.sys.fakes.raiffeisen.callbackMode = 'hold';
    await w.sys.fakes.raiffeisen.pay(qrId);
    const succeeded = webhook(w, id, 'payment.succeeded');
    const report = await syncByAdmin(w, id);
    expect(report).toEqual({
      link_id: id,
      changed: true,
      attempts_read: 1,
      refunds_read: 0,
      refunds: [],
      attempts: [
        {
          order_id: `${id}-1`,
          provider: 'raiffeisen_sbp',
          gateway_payment_id: qrId,
          provider_status: 'SUCCESS',
          state_before: 'pending',
          state_after: 'paid',
          link_status_before: 'pending',
          link_status_after: 'paid',
          canceled: false,
          done: true,
          error: null,
        },
      ],
    });
    await succeeded;
    // The held notification arrives late: 200, nothing changes.
    const late = await w.sys.fakes.raiffeisen.releaseCallbacks();
    expect(late.map((d) => d.status)).toEqual([200]);
    expect(await syncByAdmin(w, id)).toEqual({ link_id: id, changed: false, attempts_read: 0, refunds_read: 0, refunds: [], attempts: [] });
    expect(await outboxEvents(w, id)).toEqual(['payment.succeeded']);
    expect(await latePayments(w, id)).toBe(0);
  });

  it('payment:sync and the late callback at the same moment, on five links: each is paid once, no late payment', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, () => liveLink(w, '450.00')));
    const uuids = await Promise.all(ids.map((id) => selectCrypto(w, id)));
    w.sys.fakes.heleket.callbackPolicy = { mode: 'hold', delayMs: 0, repeat: 1 };
    for (const uuid of uuids) w.sys.fakes.heleket.pay(uuid);
    const hits = ids.map((id) => webhook(w, id, 'payment.succeeded'));
    await Promise.all([w.sys.fakes.heleket.releaseCallbacks(), ...ids.map((id) => syncByAdmin(w, id))]);
    await Promise.all(hits);
    for (const id of ids) {
      expect(await outboxEvents(w, id)).toEqual(['payment.succeeded']);
      expect((await attemptsOf(w, id)).map((a) => a.state)).toEqual(['paid']);
      expect(await latePayments(w, id)).toBe(0);
    }
    expect(w.sys.fakes.heleket.deliveries.slice(-5).map((d) => d.answer)).toEqual([200, 200, 200, 200, 200]);
  });

  it('a verified Heleket callback for an invoice the platform never made: 200, nothing changed, counted for operators', async () => {
    const before = await scrapedSum(w.sys.gatewayOpsPort, 'provider_callbacks_unknown_total', { provider: 'heleket' });
    const env = w.sys.env;
    // Someone else's invoice on the platform's Heleket account, calling back to the platform.
    const stranger = heleketProvider({
      apiUrl: env.HELEKET_API_URL ?? '',
      merchantId: env.HELEKET_MERCHANT_ID ?? '',
      paymentKey: env.HELEKET_PAYMENT_KEY ?? '',
      payoutKey: env.HELEKET_PAYOUT_KEY ?? '',
      publicBaseUrl: env.PUBLIC_BASE_URL ?? '',
      callbackIps: [],
    });
    const made = await stranger.createPayment(
      {
        orderId: `stranger-${randomUUID()}`,
        linkId: randomUUID(),
        method: 'crypto',
        network: 'USDT-TRC20',
        payerAmountKopecks: 100_000,
        description: null,
        merchantOrderId: null,
        expiresAt: new Date(Date.now() + 3_600_000),
        returnUrl: null,
      },
      { timeoutMs: 5000 },
    );
    const deliveries = w.sys.fakes.heleket.deliveries.length;
    w.sys.fakes.heleket.pay(made.gatewayPaymentId);
    const [delivery] = (await w.sys.fakes.heleket.deliveriesReach(deliveries + 1)).slice(deliveries);
    expect(delivery?.answer).toBe(200);
    expect(await scrapedSum(w.sys.gatewayOpsPort, 'provider_callbacks_unknown_total', { provider: 'heleket' })).toBe(before + 1);
    const late = await w.sys.sql('SELECT id FROM links.unresolved_payments WHERE gateway_payment_id = $1', [made.gatewayPaymentId]);
    expect(late).toEqual([]);
  });
});
