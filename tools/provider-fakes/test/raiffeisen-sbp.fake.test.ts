import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RAIFFEISEN_FAKE_SIGNATURE_HEADER, RaiffeisenSbpFake } from '../src';

/** The fake bank itself, spoken to as a client would: the documented checks, callbacks, and its control API. */

const SECRET = 'fake-own-secret';
const MERCHANT = 'MA0000000552';

interface Received {
  body: string;
  signature: string | undefined;
}

let fake: RaiffeisenSbpFake;
let hook: Server;
const received: Received[] = [];

beforeAll(async () => {
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        signature: req.headers[RAIFFEISEN_FAKE_SIGNATURE_HEADER.toLowerCase()] as string | undefined,
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  fake = new RaiffeisenSbpFake({
    secretKey: SECRET,
    sbpMerchantId: MERCHANT,
    callbackUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/cb`,
  });
  await fake.start();
});

afterAll(async () => {
  await fake?.stop();
  hook?.closeAllConnections();
  await new Promise((resolve) => hook?.close(resolve));
});

beforeEach(() => {
  fake.reset();
  received.length = 0;
});

const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${fake.apiUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
const bearer = { Authorization: `Bearer ${SECRET}` };
const control = (method: string, path: string, body?: unknown) =>
  fetch(`${fake.url}/_fake${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

const qrRequest = (over: Record<string, unknown> = {}) => ({
  qrType: 'QRDynamic',
  order: `${randomUUID()}-1`,
  sbpMerchantId: MERCHANT,
  amount: 1110.11,
  currency: 'RUB',
  qrExpirationDate: new Date(Date.now() + 3_600_000).toISOString().replace('Z', '+00:00'),
  paymentDetails: 'Назначение платежа',
  ...over,
});

describe('register, as the bank documents it', () => {
  it('answers the documented shape without authorization', async () => {
    const answer = await api('POST', '/sbp/v1/qr/register', qrRequest());
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      code: 'SUCCESS',
      qrId: expect.stringMatching(/^AD[0-9A-F]{30}$/),
      payload: expect.stringMatching(/^https:\/\/qr\.nspk\.ru\/AD[0-9A-F]{30}\?type=02&bank=\d+&sum=111011&cur=RUB&crc=[0-9A-F]{4}$/),
      qrUrl: expect.stringContaining('/sbp/v1/qr/'),
    });
  });

  it.each([
    [{ sbpMerchantId: undefined }, 'ERROR.SBP_MERCHANT_ID_IS_MISSING'],
    [{ sbpMerchantId: 'MA0000000001' }, 'ERROR.MERCHANT_NOT_REGISTERED'],
    [{ order: 'no spaces allowed' }, 'ERROR.INVALID_ORDER'],
    [{ order: 'x'.repeat(41) }, 'ERROR.INVALID_ORDER'],
    [{ amount: undefined }, 'ERROR.DYNAMIC_QR_WITHOUT_AMOUNT'],
    [{ amount: '1110.11' }, 'ERROR.INVALID_REQUEST'],
    [{ amount: 1.005 }, 'ERROR.INVALID_REQUEST'],
    [{ amount: 0 }, 'ERROR.INVALID_REQUEST'],
    [{ currency: 'USD' }, 'ERROR.INVALID_REQUEST'],
    [{ qrExpirationDate: '2020-01-01T00:00:00+03:00' }, 'ERROR.QR_EXPIRATION_DATE_NOT_VALID'],
    [{ qrExpirationDate: '2099-01-01 00:00:00' }, 'ERROR.QR_EXPIRATION_DATE_NOT_VALID'],
    [{ paymentDetails: 'x'.repeat(186) }, 'ERROR.INVALID_REQUEST'],
  ])('refuses %j with 400 %s', async (over, code) => {
    const answer = await api('POST', '/sbp/v1/qr/register', qrRequest(over));
    expect(answer).toMatchObject({ status: 400, body: { code, message: expect.any(String) } });
    expect(fake.book.qrs.size).toBe(0);
  });

  it('refuses a second QR for an order that was paid', async () => {
    const request = qrRequest();
    const first = await api('POST', '/sbp/v1/qr/register', request);
    fake.callbackMode = 'drop';
    await fake.pay(first.body.qrId as string);
    expect(await api('POST', '/sbp/v1/qr/register', request)).toMatchObject({ status: 400, body: { code: 'ERROR.ORDER_NUMBER_ALREADY_REGISTERED' } });
  });

  it('refuses a body that is not JSON', async () => {
    expect(await api('POST', '/sbp/v1/qr/register', '{"order":')).toMatchObject({ status: 400, body: { code: 'ERROR.INVALID_REQUEST' } });
  });
});

describe('the calls that need the Bearer key', () => {
  it.each([
    ['GET', '/sbp/v2/qrs/AD1'],
    ['DELETE', '/sbp/v2/qrs/AD1'],
    ['GET', '/sbp/v1/qr/AD1/payment-info'],
    ['GET', '/sbp/v1/refund/r1'],
  ])('%s %s answers 401 without the key or with another', async (method, path) => {
    expect((await api(method, path)).status).toBe(401);
    expect((await api(method, path, undefined, { Authorization: 'Bearer other' })).status).toBe(401);
    expect((await api(method, path, undefined, bearer)).status).toBe(404);
  });

  it('reads a QR with the documented v2 shape, and expires it on its date', async () => {
    const { body } = await api('POST', '/sbp/v1/qr/register', qrRequest());
    const qrId = body.qrId as string;
    expect(await api('GET', `/sbp/v2/qrs/${qrId}`, undefined, bearer)).toMatchObject({
      status: 200,
      body: { qrId, qrStatus: 'NEW', payload: expect.any(String) },
    });
    fake.expire(qrId);
    expect(await api('GET', `/sbp/v2/qrs/${qrId}`, undefined, bearer)).toMatchObject({ body: { qrStatus: 'EXPIRED' } });
    await expect(fake.pay(qrId)).rejects.toThrow('EXPIRED');
  });

  it('sets the callback URL through the documented settings call', async () => {
    expect(await api('POST', '/settings/v1/callback', { callbackUrl: 'https://example.test/cb' }, bearer)).toMatchObject({
      status: 200,
      body: { callbackUrl: 'https://example.test/cb' },
    });
    expect(fake.notifier.url).toBe('https://example.test/cb');
  });
});

describe('notifications', () => {
  async function registered(amount = 100.5) {
    return (await api('POST', '/sbp/v1/qr/register', qrRequest({ amount }))).body.qrId as string;
  }

  it('sends the documented body, signed by the documented rule over the amount as written', async () => {
    const qrId = await registered();
    await fake.pay(qrId, { amountText: '100.50' });
    expect(received).toHaveLength(1);
    const [{ body, signature }] = received as [Received];
    const parsed = JSON.parse(body);
    expect(Object.keys(parsed)).toEqual([
      'transactionId',
      'qrId',
      'sbpMerchantId',
      'merchantId',
      'amount',
      'currency',
      'transactionDate',
      'paymentStatus',
      'additionalInfo',
      'order',
      'createDate',
    ]);
    expect(body).toContain('"amount":100.50,');
    expect(parsed.transactionDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+03:00$/);
    const signed = `100.50|${MERCHANT}|${parsed.order}|SUCCESS|${parsed.transactionDate}`;
    expect(signature).toBe(createHmac('sha256', SECRET).update(signed).digest('hex'));
  });

  it('drops, holds, repeats and reorders notifications as told', async () => {
    const a = await registered();
    const b = await registered();
    fake.callbackMode = 'drop';
    expect(await fake.pay(a)).toEqual([]);
    expect(received).toHaveLength(0);

    fake.callbackMode = 'deliver';
    expect(await fake.redeliver(a, { repeat: 2 })).toHaveLength(3);
    expect(received).toHaveLength(3);

    fake.callbackMode = 'hold';
    await fake.decline(b);
    await fake.redeliver(a);
    expect(received).toHaveLength(3);
    const released = await fake.releaseCallbacks('reverse');
    expect(released.map((d) => d.qrId)).toEqual([a, b]);
    expect(received.slice(3).map((r) => JSON.parse(r.body).paymentStatus)).toEqual(['SUCCESS', 'DECLINED']);
  });

  it('delivers a delayed notification once its delay has passed, and answers a delayed request', async () => {
    const qrId = await registered();
    const deliveries = await fake.pay(qrId, { delayMs: 20 });
    expect(deliveries).toEqual([expect.objectContaining({ qrId, status: 200 })]);
    expect(received).toHaveLength(1);
    fake.fail('qr_info', { type: 'delay', ms: 20 });
    expect(await api('GET', `/sbp/v2/qrs/${qrId}`, undefined, bearer)).toMatchObject({ status: 200, body: { qrStatus: 'PAID' } });
  });

  it('answers payment-info with the payment, the amount as the notification wrote it', async () => {
    const qrId = await registered();
    fake.callbackMode = 'drop';
    expect(await api('GET', `/sbp/v1/qr/${qrId}/payment-info`, undefined, bearer)).toMatchObject({ status: 404, body: { code: 'ERROR.NOT_FOUND' } });
    await fake.underpay(qrId, 50);
    const info = await fetch(`${fake.apiUrl}/sbp/v1/qr/${qrId}/payment-info`, { headers: bearer }).then((r) => r.text());
    expect(info).toContain('"amount":100,');
    expect(JSON.parse(info)).toMatchObject({
      code: 'SUCCESS',
      paymentStatus: 'SUCCESS',
      qrId,
      sbpMerchantId: MERCHANT,
      transactionId: expect.any(Number),
    });
  });
});

describe('control API (a fake run as a process)', () => {
  it('pays a QR, injects a fault, and reports requests with the key masked', async () => {
    const { body } = await api('POST', '/sbp/v1/qr/register', qrRequest());
    const qrId = body.qrId as string;
    expect(await control('GET', '/qrs')).toMatchObject({ status: 200, body: [{ qr_id: qrId, status: 'NEW', amount: '1110.11' }] });
    expect(await control('POST', `/qrs/${qrId}/pay`, { amount: '1110.11', amount_text: '1110.110' })).toMatchObject({
      status: 200,
      body: { deliveries: [{ status: 200 }] },
    });
    expect(received.at(-1)?.body).toContain('"amount":1110.110,');

    expect((await control('POST', '/faults', { kind: 'payment_info', type: 'status', status: 503 })).status).toBe(200);
    expect((await api('GET', `/sbp/v1/qr/${qrId}/payment-info`, undefined, bearer)).status).toBe(503);
    expect((await api('GET', `/sbp/v1/qr/${qrId}/payment-info`, undefined, bearer)).status).toBe(200);

    const report = await control('GET', '/requests');
    expect(report.body.counts).toEqual({ register: 1, payment_info: 2 });
    expect(JSON.stringify(report.body.requests)).not.toContain(SECRET);
  });

  it('refuses a control request it cannot follow with a 4xx that says why', async () => {
    expect(await control('POST', '/faults', { kind: 'everything', type: 'status', status: 500 })).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('kind') },
    });
    expect(await control('POST', '/qrs/AD404/pay', {})).toMatchObject({ status: 409 });
    expect((await control('GET', '/nothing')).status).toBe(404);
  });
});
