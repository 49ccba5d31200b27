import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { Client } from 'pg';
import { createClient } from 'redis';
import { eventually } from '@pl/testing';
import type { ApiResponse } from '../support/http';
import { expectError } from '../support/http';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * An Idempotency-Key makes a retry harmless whatever happened to the first attempt: the links service keeps the
 * key with the link it made, so neither a client that left, a bus time-out after the commit, a burst of
 * concurrent retries nor a Redis that forgot the key gives a second link.
 */
let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let redis: ReturnType<typeof createClient>;

beforeAll(async () => {
  sys = await startSystem();
  ({ merchant, shop } = await sys.merchantWithShop());
  redis = createClient({ url: REDIS_URL });
  await redis.connect();
});
afterAll(async () => {
  await redis?.quit();
  await sys?.stop();
});

const PATH = '/merchant/v1/payment-links';
const create = (key: string, body: object, headers: Record<string, string> = merchant.keys): Promise<ApiResponse> =>
  sys.http.post(PATH, body, { headers: { ...headers, 'Idempotency-Key': key } });
const linksOf = async (orderId: string): Promise<string[]> =>
  (await sys.sql<{ id: string }>('SELECT id FROM links.payment_links WHERE order_id = $1', [orderId])).map((r) => r.id);
const inProgress = (res: ApiResponse): boolean => res.status === 409 && /in progress/.test(res.body?.error?.message ?? '');

/** The gateway's cache forgets every key of this system, as after a Redis restart without persistence. */
async function forgetKeysInRedis(): Promise<void> {
  for await (const keys of redis.scanIterator({ MATCH: `${sys.namespace}:idem:*`, COUNT: 100 })) {
    for (const key of [keys].flat()) await redis.del(key);
  }
}

/** A retry loop as a client would run it: again while the first attempt is still in progress. */
async function retryUntilAnswered(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  let last: ApiResponse | undefined;
  await eventually(
    async () => {
      last = await send();
      return !inProgress(last);
    },
    'a retry past the in-progress marker',
    10_000,
    10,
  );
  return last!;
}

type Drop = { at: 'mid-body' } | { at: 'after-send'; afterMs: number };

/** Sends a create over a raw socket and closes the socket at the given point, without reading any answer. */
function sendAndDrop(key: string, body: object, drop: Drop): Promise<void> {
  const url = new URL(sys.baseUrl);
  const json = JSON.stringify(body);
  const head = [
    `POST ${PATH} HTTP/1.1`,
    `Host: ${url.host}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(json)}`,
    `Idempotency-Key: ${key}`,
    ...Object.entries(merchant.keys).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      if (drop.at === 'mid-body') {
        socket.write(head + json.slice(0, json.length >> 1), () => socket.destroy());
      } else {
        socket.write(head + json);
        setTimeout(() => socket.destroy(), drop.afterMs);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

it('a client that drops the connection at random points and retries with the same key gets one link per key (40 rounds)', async () => {
  // Drop points spread over a keyed create's whole life: measured here, so the rounds hit every stage of it.
  const started = Date.now();
  for (let i = 0; i < 5; i++) expect((await create(`warm-${randomUUID()}`, { shop_id: shop.id, amount: '1.00' })).status).toBe(201);
  const createMs = Math.max(2, (Date.now() - started) / 5);

  const ROUNDS = 40;
  const figures = { rounds: ROUNDS, midBody: 0, afterSend: 0, retryReplayed: 0, retryCreated: 0 };
  const orders: string[] = [];
  const answers = new Map<string, string>();
  for (let round = 0; round < ROUNDS; round++) {
    const key = `drop-${round}-${randomUUID()}`;
    const orderId = `order-${key}`;
    const body = { shop_id: shop.id, amount: `${1 + round}.00`, order_id: orderId };
    const drop: Drop = Math.random() < 0.2 ? { at: 'mid-body' } : { at: 'after-send', afterMs: Math.random() * 2 * createMs };
    if (drop.at === 'mid-body') figures.midBody++;
    else figures.afterSend++;
    await sendAndDrop(key, body, drop);
    const answer = await retryUntilAnswered(() => create(key, body));
    expect(answer.status).toBe(201);
    if (answer.headers.get('idempotent-replayed') === 'true') figures.retryReplayed++;
    else figures.retryCreated++;
    orders.push(orderId);
    answers.set(orderId, answer.body.id);
  }

  const linksPerKey = await Promise.all(orders.map(async (o) => ({ order: o, links: await linksOf(o) })));
  console.log('drop-and-retry', { ...figures, keysWithOneLink: linksPerKey.filter((l) => l.links.length === 1).length });
  for (const { order, links } of linksPerKey) expect({ order, links }).toEqual({ order, links: [answers.get(order)] });
});

it('a bus time-out after the links service committed: the retry gets the first link, replayed', async () => {
  const key = `timeout-${randomUUID()}`;
  const body = { shop_id: shop.id, amount: '42.00', order_id: `order-${key}` };
  // Keyed writes wait behind this lock (reads do not), so the links service commits only after the gateway's
  // NATS time-out has answered the client.
  const blocker = new Client({ connectionString: sys.database.url });
  await blocker.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE links.idempotency_keys IN SHARE MODE');
    const first = await create(key, body);
    expectError(first, 503, 'common.err.unavailable');
    await blocker.query('COMMIT');
  } finally {
    await blocker.end();
  }
  await eventually(async () => (await linksOf(body.order_id)).length === 1, 'the delayed create committed', 10_000);

  const retry = await create(key, body);
  expect(retry.status).toBe(201);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(await linksOf(body.order_id)).toEqual([retry.body.id]);
});

it('50 concurrent requests with one key make one link; each answer is 201 with it or 409 in progress', async () => {
  const key = `burst-${randomUUID()}`;
  const body = { shop_id: shop.id, amount: '7.00', order_id: `order-${key}` };
  const answers = await Promise.all(Array.from({ length: 50 }, () => create(key, body)));
  const links = await linksOf(body.order_id);
  expect(links).toHaveLength(1);
  for (const res of answers) {
    if (res.status === 201) expect(res.body.id).toBe(links[0]);
    else {
      expectError(res, 409, 'common.err.idempotency_conflict');
      expect(inProgress(res)).toBe(true);
    }
  }
  console.log('concurrent', { requests: 50, answered201: answers.filter((a) => a.status === 201).length, links: links.length });
});

describe('whatever the gateway cache remembers', () => {
  it('replays a create from the links service after Redis forgot the key, and refuses another body', async () => {
    const key = `forgotten-${randomUUID()}`;
    const body = { shop_id: shop.id, amount: '5.00', order_id: `order-${key}` };
    const first = await create(key, body);
    await forgetKeysInRedis();
    const again = await create(key, body);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await forgetKeysInRedis();
    expectError(await create(key, { ...body, amount: '6.00' }), 409, 'common.err.idempotency_conflict');
    expect(await linksOf(body.order_id)).toEqual([first.body.id]);
  });

  it('keeps the session and cashier create routes and both cancel routes to one answer per key', async () => {
    const token = await sys.login(merchant);
    const session = { Authorization: `Bearer ${token}` };
    const cashier = { Authorization: `Bearer ${shop.cashierKey}` };
    const routes = [
      { path: '/api/v1/payment-links', headers: session, body: { shop_id: shop.id, amount: '3.00' } },
      { path: '/api/v1/merchant/payments', headers: cashier, body: { amount: '4.00' } },
    ];
    for (const route of routes) {
      const key = `route-${randomUUID()}`;
      const body = { ...route.body, order_id: `order-${key}` };
      const send = () => sys.http.post(route.path, body, { headers: { ...route.headers, 'Idempotency-Key': key } });
      const first = await send();
      expect(first.status).toBe(201);
      await forgetKeysInRedis();
      const again = await send();
      expect({ path: route.path, status: again.status, replayed: again.headers.get('idempotent-replayed') }).toEqual({
        path: route.path,
        status: 201,
        replayed: 'true',
      });
      expect(await linksOf(body.order_id)).toEqual([first.body.id]);
    }

    for (const [prefix, headers] of [
      ['/merchant/v1/payment-links', merchant.keys],
      ['/api/v1/payment-links', session],
    ] as const) {
      const link = (await create(`for-cancel-${randomUUID()}`, { shop_id: shop.id, amount: '2.00' })).body;
      const key = `cancel-${randomUUID()}`;
      const cancel = () => sys.http.post(`${prefix}/${link.id}/cancel`, {}, { headers: { ...headers, 'Idempotency-Key': key } });
      const first = await cancel();
      expect(first.status).toBe(200);
      expect(first.body.status).toBe('canceled');
      await forgetKeysInRedis();
      const again = await cancel();
      expect({ prefix, status: again.status, replayed: again.headers.get('idempotent-replayed') }).toEqual({ prefix, status: 200, replayed: 'true' });
      expect(again.body).toEqual(first.body);
      // Without the key a second cancel is still refused.
      expectError(await sys.http.post(`${prefix}/${link.id}/cancel`, {}, { headers }), 409, 'payment_link.err.not_pending');
    }
  });
});
