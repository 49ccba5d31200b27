import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { broadcasts, webhookEvent, type ShopsChangedMessage } from '@pl/contracts';
import { Receiver } from './receiver';
import { TestSystem } from './harness';

const SECRET = 'shop-secret-ключ-42';

describe('webhook delivery', () => {
  const system = new TestSystem('notifdeliv', { WEBHOOK_CONCURRENCY: '6', WEBHOOK_PER_ENDPOINT_CONCURRENCY: '2' });
  const receivers: Receiver[] = [];
  const receiver = async (reply?: ConstructorParameters<typeof Receiver>[0]): Promise<Receiver> => {
    const r = await new Receiver(reply).start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    await system.start();
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await system.stop();
  });

  it('retries a receiver that answers 500 three times, then stops after its 200: 4 attempts, one webhook id, attempts 1..4', async () => {
    const r = await receiver((n) => ({ status: n <= 3 ? 500 : 200, body: n <= 3 ? 'boom' : 'ok' }));
    const event = system.event(await system.createShop(r.url, SECRET));
    await system.publish(event);
    await r.nth(4);
    expect(await system.settled(event.event_id)).toBe('succeeded');
    expect(r.hits).toHaveLength(4);
    expect(r.hits.map((h) => h.headers['x-webhook-attempt'])).toEqual(['1', '2', '3', '4']);
    expect(new Set(r.hits.map((h) => h.headers['x-webhook-id']))).toEqual(new Set([`evt_${event.event_id}`]));
    expect(new Set(r.hits.map((h) => h.body.toString('utf8'))).size).toBe(1);
    const attempts = await system.attempts(event.event_id);
    expect(attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 500, null],
      [2, 500, null],
      [3, 500, null],
      [4, 200, null],
    ]);
    expect(attempts[0]?.response_head?.toString('utf8')).toBe('boom');
  });

  it('gives up after exactly 8 failed attempts and marks the delivery failed', async () => {
    const r = await receiver(() => ({ status: 503 }));
    const event = system.event(await system.createShop(r.url, null));
    await system.publish(event);
    expect(await system.settled(event.event_id)).toBe('failed');
    expect(r.hits.map((h) => h.headers['x-webhook-attempt'])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(await system.attempts(event.event_id)).toHaveLength(8);
  });

  it('sends the body and headers of the decisions, with both signatures verifiable', async () => {
    const r = await receiver();
    const shopId = await system.createShop(r.url, SECRET);
    const event = system.event(shopId);
    await system.publish(event);
    const hit = await r.nth(1);
    const body = {
      event: 'payment.succeeded',
      event_id: `evt_${event.event_id}`,
      created_at: event.occurred_at,
      livemode: true,
      data: event.data,
    };
    expect(JSON.parse(hit.body.toString('utf8'))).toEqual(body);
    expect(webhookEvent.safeParse(body).success).toBe(true);
    const hex = createHmac('sha256', SECRET).update(hit.body).digest('hex');
    expect(hit.headers).toMatchObject({
      'content-type': 'application/json',
      'x-webhook-event': 'payment.succeeded',
      'service-event': 'payment.succeeded',
      'x-webhook-signature': hex,
      'service-signature': hex,
      'x-webhook-id': `evt_${event.event_id}`,
      'webhook-id': `evt_${event.event_id}`,
      'x-webhook-attempt': '1',
    });
    const timestamp = Number(hit.headers['x-webhook-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(5);
    expect(hit.headers['webhook-timestamp']).toBe(String(timestamp));
    const wh = new Webhook(`whsec_${Buffer.from(SECRET, 'utf8').toString('base64')}`);
    expect(wh.verify(hit.body.toString('utf8'), hit.headers as Record<string, string>)).toEqual(body);
  });

  it('sends no signature headers for a shop without a secret', async () => {
    const r = await receiver();
    await system.publish(system.event(await system.createShop(r.url, null)));
    const hit = await r.nth(1);
    expect(hit.headers['x-webhook-id']).toBeDefined();
    for (const name of ['x-webhook-signature', 'service-signature', 'webhook-signature']) expect(hit.headers[name]).toBeUndefined();
  });

  it('turns a redelivered Kafka message into one webhook and skips a malformed one without blocking the partition', async () => {
    const r = await receiver();
    const shopId = await system.createShop(r.url, null);
    const event = system.event(shopId);
    const key = event.data.payment_link_id;
    await system.publish(event);
    await system.publish(event);
    await system.publish(event, '{"event":"payment.succeeded","data":{}}', key);
    await system.publish(event, 'not json', key);
    // Same key, same partition: once this one is delivered, the duplicates and the junk were consumed.
    const sentinel = system.event(shopId, system.merchantId, key);
    await system.publish(sentinel, JSON.stringify(sentinel), key);
    expect(await system.settled(sentinel.event_id)).toBe('succeeded');
    expect(await system.settled(event.event_id)).toBe('succeeded');
    expect(r.hits.filter((h) => h.headers['x-webhook-id'] === `evt_${event.event_id}`)).toHaveLength(1);
    const { rows } = await system.pg!.query('SELECT count(*)::int AS n FROM notifier.inbox_events WHERE event_id = $1', [event.event_id]);
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('counts a redirect as a failed attempt and does not follow it', async () => {
    const elsewhere = await receiver();
    const r = await receiver((n) => (n === 1 ? { status: 302, headers: { location: elsewhere.url } } : { status: 204 }));
    const event = system.event(await system.createShop(r.url, null));
    await system.publish(event);
    expect(await system.settled(event.event_id)).toBe('succeeded');
    expect((await system.attempts(event.event_id)).map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 302, 'redirect not followed'],
      [2, 204, null],
    ]);
    expect(elsewhere.hits).toHaveLength(0);
  });

  it('counts a time-out as a failed attempt and waits at least the throttle floor before the next', async () => {
    const r = await receiver((n) => (n === 1 ? 'hang' : { status: 200 }));
    const event = system.event(await system.createShop(r.url, null));
    await system.publish(event);
    const first = await r.nth(1);
    const second = await r.nth(2);
    // 1000 ms time-out, then max(50 ms ± 20 %, 100 ms floor).
    expect(second.at - first.at).toBeGreaterThanOrEqual(1000 + 100 - 15);
    expect(await system.settled(event.event_id)).toBe('succeeded');
    const [attempt1] = await system.attempts(event.event_id);
    expect(attempt1).toMatchObject({ attempt: 1, status_code: null, error: 'timeout after 1000 ms' });
    expect(attempt1!.duration_ms).toBeGreaterThanOrEqual(990);
  });

  it('keeps only the first 4 KiB of a huge response', async () => {
    const r = await receiver(() => ({ status: 200, body: Buffer.alloc(5 * 1024 * 1024, 'x') }));
    const event = system.event(await system.createShop(r.url, null));
    await system.publish(event);
    expect(await system.settled(event.event_id)).toBe('succeeded');
    const [attempt] = await system.attempts(event.event_id);
    expect(attempt?.response_head?.length).toBe(4096);
  });

  it('delivers to another shop at once while a hanging receiver holds its own endpoint slots', async () => {
    const slow = await receiver(() => 'hang');
    const fast = await receiver();
    const slowShop = await system.createShop(slow.url, null);
    for (let i = 0; i < 5; i += 1) await system.publish(system.event(slowShop));
    await slow.nth(2);
    const fastEvent = system.event(await system.createShop(fast.url, null));
    await system.publish(fastEvent);
    const hit = await fast.nth(1);
    const { rows } = await system.pg!.query<{ created_at: Date }>('SELECT created_at FROM notifier.deliveries WHERE event_id = $1', [
      fastEvent.event_id,
    ]);
    // Sent within moments of being stored, although the slow shop had deliveries due all along...
    expect(hit.at - rows[0]!.created_at.getTime()).toBeLessThan(500);
    // ...which never had more than its two endpoint slots.
    expect(slow.maxOpen).toBe(2);
    slow.release();
  });

  it("holds two shops that share one endpoint to that endpoint's two slots together, then delivers all", async () => {
    const shared = await receiver((n) => (n <= 2 ? 'hang' : { status: 200 }));
    const shops = [await system.createShop(shared.url, null), await system.createShop(shared.url, null)];
    const events = shops.flatMap((shopId) => [system.event(shopId), system.event(shopId), system.event(shopId)]);
    for (const e of events) await system.publish(e);
    await shared.nth(2);
    // Another shop's webhook arrives only after the worker claimed again with both shared slots taken.
    const fast = await receiver();
    await system.publish(system.event(await system.createShop(fast.url, null)));
    await fast.nth(1);
    expect(shared.maxOpen).toBe(2);
    shared.release();
    for (const e of events) expect(await system.settled(e.event_id)).toBe('succeeded');
    expect(shared.maxOpen).toBe(2);
  });

  it("sends to a shop's new URL as soon as the shops service announced the change", async () => {
    const before = await receiver();
    const after = await receiver();
    const shopId = await system.createShop(before.url, SECRET);
    await system.publish(system.event(shopId));
    await before.nth(1);
    const announced = new Promise<void>((resolve) => {
      const sub = system.bus!.subscribe(
        broadcasts.shopsChanged,
        (m: ShopsChangedMessage) => {
          if (m.shop_id !== shopId && m.shop_id !== null) return;
          sub.unsubscribe();
          resolve();
        },
        () => undefined,
      );
    });
    // The server must hold the subscription before the change is announced.
    await system.flushBus();
    await system.updateShop(shopId, { webhook_url: after.url });
    await announced;
    const event = system.event(shopId);
    await system.publish(event);
    expect(await system.settled(event.event_id)).toBe('succeeded');
    expect(after.hits.map((h) => h.headers['x-webhook-id'])).toEqual([`evt_${event.event_id}`]);
    expect(before.hits).toHaveLength(1);
  });
});
