import { createHmac, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { PUBLIC_EVENT_ID, subjects, webhookDelivery, type Identity } from '@pl/contracts';
import { Receiver } from './receiver';
import { TestSystem } from './harness';

const SECRET = 'test-webhook-secret-Ω';
const receiverWith = (secret: string): Webhook => new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`);

describe('webhook.test over NATS', () => {
  const system = new TestSystem('notiftest');
  const stranger = randomUUID();
  let receiver: Receiver;
  let shopId: number;

  beforeAll(async () => {
    await system.start();
    // The first request fails, so the test webhook also shows a retry in its log.
    receiver = await new Receiver((n) => ({ status: n === 1 ? 503 : 200 })).start();
    shopId = await system.createShop(receiver.url, SECRET);
  });

  afterAll(async () => {
    await receiver?.close();
    await system.stop();
  });

  const sendTest = (shop: number, identity: Identity = system.merchant()) =>
    system.bus!.request(subjects.deliveriesTest, { shop_id: shop }, identity);

  it('queues a signed webhook.test delivery, retries it like any other and logs its attempts', async () => {
    // No confirmed email is needed to test a webhook.
    const session: Identity = { kind: 'merchant', merchant_id: system.merchantId, auth: 'session', email_confirmed: false, mode: 'live' };
    const reply = webhookDelivery.parse(await sendTest(shopId, session));
    expect(reply).toMatchObject({ event: 'webhook.test', payment_link_id: null, shop_id: shopId, status: 'pending', attempts: [] });
    expect(reply.webhook_id).toMatch(PUBLIC_EVENT_ID);

    const [first, second] = await Promise.all([receiver.nth(1), receiver.nth(2)]);
    expect(second.body.equals(first.body)).toBe(true);
    const body = JSON.parse(second.body.toString('utf8')) as unknown;
    expect(body).toEqual({
      event: 'webhook.test',
      // As in every event's body: the id is the webhook id a receiver deduplicates by.
      event_id: reply.webhook_id,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+03:00$/),
      livemode: true,
      data: { shop_id: shopId, sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+03:00$/) },
    });
    expect(Object.keys((body as { data: object }).data)).toEqual(['shop_id', 'sent_at']);
    expect(second.headers).toMatchObject({
      'x-webhook-event': 'webhook.test',
      'service-event': 'webhook.test',
      'x-webhook-id': reply.webhook_id,
      'x-webhook-attempt': '2',
      'x-webhook-signature': createHmac('sha256', SECRET).update(second.body).digest('hex'),
    });
    expect(() => receiverWith(SECRET).verify(second.body.toString('utf8'), second.headers as Record<string, string>)).not.toThrow();

    expect(await system.settledById(reply.id)).toBe('succeeded');
    const page = await system.bus!.request(
      subjects.deliveriesList,
      { payment_link_id: null, shop_id: shopId, status: null, limit: 20, cursor: null },
      system.merchant(),
    );
    const logged = page.deliveries.find((d) => d.id === reply.id);
    expect(logged).toMatchObject({ event: 'webhook.test', payment_link_id: null, shop_id: shopId, status: 'succeeded' });
    expect(logged?.attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 503],
      [2, 200],
    ]);
  });

  it('resends a test delivery as a new series with the same webhook id and body', async () => {
    const before = receiver.hits.length;
    const reply = await sendTest(shopId);
    const sent = await receiver.nth(before + 1);
    expect(await system.settledById(reply.id)).toBe('succeeded');
    const resent = await system.bus!.request(subjects.deliveriesResend, { id: reply.id }, system.merchant());
    expect(resent).toMatchObject({ id: reply.id, event: 'webhook.test', status: 'pending' });
    const again = await receiver.nth(before + 2);
    expect(again.headers).toMatchObject({ 'x-webhook-id': reply.webhook_id, 'x-webhook-attempt': '1', 'x-webhook-event': 'webhook.test' });
    expect(again.body.equals(sent.body)).toBe(true);
    expect(await system.settledById(reply.id)).toBe('succeeded');
  });

  it('sends a webhook.test whatever events the shop is subscribed to, none included', async () => {
    const silent = await system.createShop(receiver.url, SECRET);
    await system.updateShop(silent, { webhook_events: [] });
    const before = receiver.hits.length;
    const reply = await sendTest(silent);
    const sent = await receiver.nth(before + 1);
    expect(sent.headers).toMatchObject({ 'x-webhook-event': 'webhook.test', 'webhook-id': reply.webhook_id });
    expect(await system.settledById(reply.id)).toBe('succeeded');
  });

  it('refuses a shop without a webhook address with 422 shop.err.no_webhook_url and stores nothing', async () => {
    const bare = await system.createShop(null, SECRET);
    await expect(sendTest(bare)).rejects.toMatchObject({ kind: 'unprocessable', code: 'shop.err.no_webhook_url' });
    const { rows } = await system.pg!.query('SELECT 1 FROM notifier.deliveries WHERE shop_id = $1', [bare]);
    expect(rows).toHaveLength(0);
  });

  it('refuses another merchant’s shop (403), a cashier’s other shop (403) and an unknown shop (404)', async () => {
    const strangerShop = await system.createShop(receiver.url, SECRET, stranger);
    await expect(sendTest(strangerShop)).rejects.toMatchObject({ kind: 'forbidden' });
    const otherOwn = await system.createShop(receiver.url, SECRET);
    const cashier: Identity = {
      kind: 'merchant',
      merchant_id: system.merchantId,
      auth: 'cashier',
      shop_id: otherOwn,
      email_confirmed: true,
      mode: 'live',
    };
    await expect(sendTest(shopId, cashier)).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(sendTest(999_999_999)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(sendTest(shopId, { kind: 'service', service: 'gateway' })).rejects.toMatchObject({ kind: 'forbidden' });
    const { rows } = await system.pg!.query('SELECT 1 FROM notifier.deliveries WHERE shop_id = ANY($1::bigint[])', [[strangerShop, otherOwn]]);
    expect(rows).toHaveLength(0);
  });
});
