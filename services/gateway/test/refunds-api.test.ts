import { createHash, randomUUID } from 'node:crypto';
import { subjects, type Refund } from '@pl/contracts';
import { amountExceedsRefundable, forbidden, insufficientBalance, linkNotPaid, notFound, refundNotPending } from '@pl/errors';
import { expectError } from '../../../tests/support/http';
import { steppedUpSession } from '../../../tests/support/second-factor';
import { startHarness, type Harness } from './harness';

/** Refunds under both route families (docs/money.md, "Refunds") in front of a scripted links service. */
let h: Harness;
let m: Awaited<ReturnType<Harness['merchant']>>;
let session: Record<string, string>;
beforeAll(async () => {
  h = await startHarness();
  m = await h.merchant();
  // Sign-ins are throttled per address: one session serves the file (stepped up, for refunds over the limit).
  session = { Authorization: `Bearer ${await steppedUpSession(h.request, m)}` };
});
afterAll(() => h.stop());
beforeEach(() => {
  h.reset();
  // Links as the routes need it: a refund of what was asked, a kept one for a claim it has seen.
  const kept = new Map<string, Refund>();
  h.on(subjects.refundsCreate.name, async (p) => {
    const c = p as { payment_link_id: string; amount_kopecks: number | null; reason: string | null; idempotency?: { key_sha256: string } };
    const seen = c.idempotency ? kept.get(c.idempotency.key_sha256) : undefined;
    if (seen) return { refund: seen, replayed: true };
    const made = refund({
      payment_link_id: c.payment_link_id,
      amount: c.amount_kopecks === null ? '10.00' : (c.amount_kopecks / 100).toFixed(2),
      reason: c.reason,
    });
    if (c.idempotency) kept.set(c.idempotency.key_sha256, made);
    return { refund: made, replayed: false };
  });
  h.on(subjects.refundsGet.name, async (p) => refund({ id: (p as { id: string }).id }));
  h.on(subjects.refundsList.name, async () => ({ refunds: [refund()], has_more: true, next_cursor: 'c2' }));
  h.on(subjects.refundsSimulate.name, async (p) => {
    const { id, status } = p as { id: string; status: Refund['status'] };
    return refund({ id, status });
  });
});

const refund = (over: Partial<Refund> = {}): Refund => ({
  id: randomUUID(),
  payment_link_id: randomUUID(),
  shop_id: 3,
  amount: '10.00',
  currency: 'RUB',
  status: 'pending',
  reason: null,
  destination: null,
  gateway_refund_id: null,
  failure_reason: null,
  late_payment_id: null,
  livemode: true,
  created_at: '2026-11-25T01:00:00+03:00',
  updated_at: '2026-11-25T01:00:00+03:00',
  ...over,
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const identity = (auth: 'api_key' | 'session', mode: 'live' | 'test' = 'live') =>
  expect.objectContaining({ kind: 'merchant', merchant_id: m.id, auth, mode });
const callsTo = (subject: { name: string }) => h.calls.filter((c) => c.subject === subject.name);

const families = () =>
  [
    { name: '/merchant/v1', base: '/merchant/v1', headers: m.keys, auth: 'api_key' as const, route: 'merchant-v1-refund' },
    { name: '/api/v1', base: '/api/v1', headers: session, auth: 'session' as const, route: 'api-v1-refund' },
  ] as const;

describe.each(['/merchant/v1', '/api/v1'])('POST %s/payment-links/{id}/refunds', (name) => {
  const family = () => families().find((f) => f.name === name)!;
  const create = (linkId: string, body?: string | object, headers: Record<string, string> = {}) =>
    h.request('POST', `${family().base}/payment-links/${linkId}/refunds`, {
      headers: { ...family().headers, ...headers },
      ...(body === undefined ? {} : { body }),
    });

  it('answers 201 with the refund links made, the body mapped to its command, as the caller in its mode', async () => {
    const link = randomUUID();
    const res = await create(link.toUpperCase(), { amount: '5.50', reason: 'Broken, "as new"', destination: null });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ payment_link_id: link, amount: '5.50', reason: 'Broken, "as new"', status: 'pending' });
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(h.calls.map((c) => [c.subject, c.payload, c.identity])).toEqual([
      [
        subjects.refundsCreate.name,
        { payment_link_id: link, amount_kopecks: 550, reason: 'Broken, "as new"', destination: null },
        identity(family().auth),
      ],
    ]);
  });

  it('refunds all that is refundable for an empty object or no body at all', async () => {
    const link = randomUUID();
    for (const body of [{}, undefined]) expect((await create(link, body)).status).toBe(201);
    expect(callsTo(subjects.refundsCreate).map((c) => c.payload)).toEqual([
      { payment_link_id: link, amount_kopecks: null, reason: null, destination: null },
      { payment_link_id: link, amount_kopecks: null, reason: null, destination: null },
    ]);
  });

  it('answers 400 naming every bad field, before the path and without asking links', async () => {
    const res = await create('not-a-uuid', { amount: 0, reason: 'x'.repeat(501), destination: 5, extra: true });
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['amount', 'destination', 'extra', 'reason']);
    expectError(await create(randomUUID(), '{"amount":'), 400, 'common.err.invalid_json');
    expect(h.calls).toEqual([]);
  });

  it('answers 404 for a path id that cannot name a link', async () => {
    expectError(await create('not-a-uuid', {}), 404, 'common.err.not_found');
    expect(h.calls).toEqual([]);
  });

  it("passes links' refusals on in their order's codes", async () => {
    const refusals = [
      [notFound('Payment link not found'), 404, 'common.err.not_found'],
      [forbidden('Payment link belongs to another merchant'), 403, 'common.err.forbidden'],
      [linkNotPaid('pending'), 409, 'payment_link.err.not_paid'],
      [amountExceedsRefundable('10.00'), 422, 'refund.err.amount_exceeds_refundable'],
      [insufficientBalance(), 422, 'refund.err.insufficient_balance'],
    ] as const;
    for (const [error, status, code] of refusals) {
      h.on(subjects.refundsCreate.name, async () => {
        throw error;
      });
      expectError(await create(randomUUID(), { amount: '1.00' }), status, code);
    }
  });

  it('carries an Idempotency-Key to links and replays the first answer for a retry, with its status', async () => {
    const link = randomUUID();
    const key = `refund-${randomUUID()}`;
    const first = await create(link, { amount: '3.00' }, { 'Idempotency-Key': key });
    const again = await create(link, { amount: '3.00' }, { 'Idempotency-Key': key });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect([first.headers.get('idempotent-replayed'), again.headers.get('idempotent-replayed')]).toEqual([null, 'true']);
    const sent = callsTo(subjects.refundsCreate);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.payload).toMatchObject({
      idempotency: { route: family().route, key_sha256: sha256(key), fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
  });

  it('answers the refund links kept when the gateway cache lost the key, marked as a replay', async () => {
    const link = randomUUID();
    const kept = refund({ payment_link_id: link });
    h.on(subjects.refundsCreate.name, async () => ({ refund: kept, replayed: true }));
    const res = await create(link, { amount: '3.00' }, { 'Idempotency-Key': `lost-${randomUUID()}` });
    expect({ status: res.status, replayed: res.headers.get('idempotent-replayed'), body: res.body }).toEqual({
      status: 201,
      replayed: 'true',
      body: kept,
    });
  });

  it.each([
    ['409 not_paid', 409, 'payment_link.err.not_paid', () => linkNotPaid('pending')],
    ['422 insufficient_balance', 422, 'refund.err.insufficient_balance', () => insufficientBalance()],
    ['422 amount_exceeds_refundable', 422, 'refund.err.amount_exceeds_refundable', () => amountExceedsRefundable('5.00')],
    ['404 not_found', 404, 'common.err.not_found', () => notFound('Payment link not found')],
    ['403 forbidden', 403, 'common.err.forbidden', () => forbidden('Payment link belongs to another merchant')],
  ] as const)('keeps no refusal under the key (%s): a retry once the state changed is judged anew', async (_name, status, code, refusal) => {
    const link = randomUUID();
    const key = `refused-${randomUUID()}`;
    const made = refund({ payment_link_id: link, amount: '3.00' });
    let refuse = true;
    h.on(subjects.refundsCreate.name, async () => {
      if (refuse) throw refusal();
      return { refund: made, replayed: false };
    });
    expectError(await create(link, { amount: '3.00' }, { 'Idempotency-Key': key }), status, code);
    refuse = false;
    const retry = await create(link, { amount: '3.00' }, { 'Idempotency-Key': key });
    expect({ status: retry.status, replayed: retry.headers.get('idempotent-replayed'), body: retry.body }).toEqual({
      status: 201,
      replayed: null,
      body: made,
    });
    // The success is what the key keeps: a third call is its replay, without asking links again.
    const again = await create(link, { amount: '3.00' }, { 'Idempotency-Key': key });
    expect({ status: again.status, replayed: again.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: 'true' });
    expect(callsTo(subjects.refundsCreate)).toHaveLength(2);
  });

  it('answers 409 idempotency_conflict for the same key with another body or another link', async () => {
    const link = randomUUID();
    const key = `conflict-${randomUUID()}`;
    expect((await create(link, { amount: '3.00' }, { 'Idempotency-Key': key })).status).toBe(201);
    expectError(await create(link, { amount: '3.01' }, { 'Idempotency-Key': key }), 409, 'common.err.idempotency_conflict');
    expectError(await create(randomUUID(), { amount: '3.00' }, { 'Idempotency-Key': key }), 409, 'common.err.idempotency_conflict');
    expect(callsTo(subjects.refundsCreate)).toHaveLength(1);
  });

  it('answers 405 for another method', async () => {
    const res = await h.request('GET', `${family().base}/payment-links/${randomUUID()}/refunds`, { headers: family().headers });
    expectError(res, 405, 'common.err.method_not_allowed');
  });
});

describe.each(['/merchant/v1', '/api/v1'])('GET %s/refunds and /refunds/{id}', (name) => {
  const family = () => families().find((f) => f.name === name)!;
  const get = (path: string, headers: Record<string, string> = {}) =>
    h.request('GET', `${family().base}${path}`, { headers: { ...family().headers, ...headers } });

  it('reads one refund by its id', async () => {
    const id = randomUUID();
    const res = await get(`/refunds/${id.toUpperCase()}`);
    expect({ status: res.status, id: res.body.id }).toEqual({ status: 200, id });
    expect(h.calls.map((c) => [c.subject, c.payload, c.identity])).toEqual([[subjects.refundsGet.name, { id }, identity(family().auth)]]);
  });

  it("answers links' 403 for another merchant's refund, 404 for an unknown one or a path id that is no uuid", async () => {
    h.on(subjects.refundsGet.name, async () => {
      throw forbidden('Refund belongs to another merchant');
    });
    expectError(await get(`/refunds/${randomUUID()}`), 403, 'common.err.forbidden');
    h.on(subjects.refundsGet.name, async () => {
      throw notFound('Refund not found');
    });
    expectError(await get(`/refunds/${randomUUID()}`), 404, 'common.err.not_found');
    h.reset();
    expectError(await get('/refunds/nope'), 404, 'common.err.not_found');
    expect(h.calls).toEqual([]);
  });

  it('lists with the filters mapped for links, and with the defaults without a query', async () => {
    const link = randomUUID();
    const res = await get(`/refunds?payment_link_id=${link.toUpperCase()}&shop_id=3&status=succeeded&limit=5&cursor=c1`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ has_more: true, next_cursor: 'c2' });
    expect((await get('/refunds')).status).toBe(200);
    expect(callsTo(subjects.refundsList).map((c) => c.payload)).toEqual([
      { payment_link_id: link, shop_id: 3, status: 'succeeded', limit: 5, cursor: 'c1' },
      { payment_link_id: null, shop_id: null, status: null, limit: 20, cursor: null },
    ]);
  });

  it('answers 400 naming every bad filter, without asking links', async () => {
    const res = await get('/refunds?payment_link_id=x&shop_id=0&status=lost&limit=101&extra=1');
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['extra', 'limit', 'payment_link_id', 'shop_id', 'status']);
    expect(h.calls).toEqual([]);
  });
});

describe('the mode of the caller', () => {
  it('acts in test mode for a test key pair and for a session with Pl-Mode: test', async () => {
    const link = randomUUID();
    expect((await h.request('POST', `/merchant/v1/payment-links/${link}/refunds`, { headers: m.testKeys, body: {} })).status).toBe(201);
    expect((await h.request('GET', '/api/v1/refunds', { headers: { ...session, 'Pl-Mode': 'test' } })).status).toBe(200);
    expect(h.calls.map((c) => c.identity)).toEqual([identity('api_key', 'test'), identity('session', 'test')]);
  });

  it('refuses the other family’s credentials: a key pair on /api/v1, a session on /merchant/v1', async () => {
    expectError(await h.request('GET', '/api/v1/refunds', { headers: m.keys }), 401, 'common.err.unauthorized');
    expectError(await h.request('GET', '/merchant/v1/refunds', { headers: session }), 401, 'common.err.unauthorized');
    expect(h.calls).toEqual([]);
  });
});

describe('POST /api/v1/refunds/{id}/simulate', () => {
  const simulate = (id: string, body: object, headers: Record<string, string> = session) =>
    h.request('POST', `/api/v1/refunds/${id}/simulate`, { headers, body });

  it("answers the refund with the simulated outcome, in the session's mode", async () => {
    const id = randomUUID();
    const res = await simulate(id, { status: 'failed' }, { ...session, 'Pl-Mode': 'test' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'failed' });
    expect(h.calls.map((c) => [c.subject, c.payload, c.identity])).toEqual([
      [subjects.refundsSimulate.name, { id, status: 'failed' }, identity('session', 'test')],
    ]);
  });

  it('answers 400 for a bad status before the path, 404 for a path id that is no uuid, without asking links', async () => {
    expectError(await simulate('nope', { status: 'pending' }), 400, 'common.err.validation_failed');
    expectError(await simulate('nope', {}), 400, 'common.err.validation_failed');
    expectError(await simulate('nope', { status: 'succeeded' }), 404, 'common.err.not_found');
    expect(h.calls).toEqual([]);
  });

  it("passes links' 404 for a live refund and 409 for a final one on", async () => {
    h.on(subjects.refundsSimulate.name, async () => {
      throw notFound('Refund not found');
    });
    expectError(await simulate(randomUUID(), { status: 'succeeded' }), 404, 'common.err.not_found');
    h.on(subjects.refundsSimulate.name, async () => {
      throw refundNotPending('succeeded');
    });
    expectError(await simulate(randomUUID(), { status: 'succeeded' }), 409, 'refund.err.not_pending');
  });

  it('is a session route only', async () => {
    expectError(await simulate(randomUUID(), { status: 'succeeded' }, m.testKeys), 401, 'common.err.unauthorized');
    expectError(
      await h.request('POST', `/merchant/v1/refunds/${randomUUID()}/simulate`, { headers: m.testKeys, body: { status: 'succeeded' } }),
      404,
      'common.err.not_found',
    );
  });
});
