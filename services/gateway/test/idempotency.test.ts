import { createHash } from 'node:crypto';
import { subjects } from '@pl/contracts';
import { idempotencyConflict, unavailable } from '@pl/errors';
import { sampleLink, startHarness, type Harness } from './harness';

let h: Harness;
let keys: Record<string, string>;
beforeAll(async () => {
  h = await startHarness();
  keys = (await h.merchant()).keys;
});
afterAll(() => h.stop());
beforeEach(() => h.reset());

const create = (key: string, body: object, headers = keys) =>
  h.request('POST', '/merchant/v1/payment-links', { headers: { ...headers, 'Idempotency-Key': key }, body });

const creates = () => h.calls.filter((c) => c.subject === subjects.linksCreateOnce.name).length;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('Idempotency-Key on create', () => {
  it('replays the original status and body for a retry with the same body', async () => {
    const first = await create('k-replay', { shop_id: 1, amount: '10.00' });
    const again = await create('k-replay', { amount: '10.00', shop_id: 1 });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(creates()).toBe(1);
  });

  it('answers 409 idempotency_conflict for the same key with a different body', async () => {
    await create('k-conflict', { shop_id: 1, amount: '10.00' });
    const res = await create('k-conflict', { shop_id: 1, amount: '10.01' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('common.err.idempotency_conflict');
  });

  it('keeps keys of one merchant apart per mode: the same key with the live and the test pair makes two links', async () => {
    const m = await h.merchant();
    const body = { shop_id: 1, amount: '10.00' };
    const live = await create('k-modes', body, m.keys);
    const test = await create('k-modes', body, m.testKeys);
    expect([live.status, test.status]).toEqual([201, 201]);
    expect(test.body.id).not.toBe(live.body.id);
    expect(test.headers.get('idempotent-replayed')).toBeNull();
    const sent = h.calls.filter((c) => c.subject === subjects.linksCreateOnce.name);
    expect(sent.map((c) => (c.identity as { mode: string }).mode)).toEqual(['live', 'test']);
    // Each mode replays its own answer.
    const again = await create('k-modes', body, m.testKeys);
    expect({ replayed: again.headers.get('idempotent-replayed'), id: again.body.id }).toEqual({ replayed: 'true', id: test.body.id });
    expect(creates()).toBe(2);
  });

  it('keeps keys of different merchants apart', async () => {
    const other = (await h.merchant()).keys;
    expect((await create('k-shared', { shop_id: 1, amount: '1' })).status).toBe(201);
    const res = await create('k-shared', { shop_id: 1, amount: '1' }, other);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(creates()).toBe(2);
  });

  it('answers 409 saying in progress while the first request is still running', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    h.on(subjects.linksCreateOnce.name, async () => {
      started();
      await gate;
      return { link: sampleLink(), replayed: false };
    });
    const first = create('k-busy', { shop_id: 1, amount: '1' });
    await running;
    const second = await create('k-busy', { shop_id: 1, amount: '1' });
    expect(second.status).toBe(409);
    expect(second.body.error.message).toMatch(/in progress/);
    release();
    expect((await first).status).toBe(201);
  });

  it('frees the key after a 5xx so a retry runs', async () => {
    h.on(subjects.linksCreateOnce.name, async () => {
      throw unavailable('links is down');
    });
    expect((await create('k-5xx', { shop_id: 1, amount: '1' })).status).toBe(503);
    h.reset();
    const retry = await create('k-5xx', { shop_id: 1, amount: '1' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses a key that is not 1..255 printable ASCII before anything runs', async () => {
    const res = await create('k'.repeat(256), { shop_id: 1, amount: '1' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('common.err.validation_failed');
    expect(creates()).toBe(0);
  });

  it('does not claim a key with an invalid body', async () => {
    expect((await create('k-invalid', { shop_id: 1, amount: '0' })).status).toBe(400);
    expect((await create('k-invalid', { shop_id: 1, amount: '1' })).status).toBe(201);
  });
});

describe('Idempotency-Key carried to the links service', () => {
  it('sends the key as its SHA-256 with the route and the body fingerprint, on the keyed subject', async () => {
    await create('k-carried', { shop_id: 1, amount: '10.00' });
    await create('k-carried-2', { amount: '10.00', shop_id: 1 });
    const [first, second] = h.calls.filter((c) => c.subject === subjects.linksCreateOnce.name).map((c) => c.payload);
    expect(first).toMatchObject({ shop_id: 1, amount_kopecks: 1000, idempotency: { route: 'merchant-v1-create', key_sha256: sha256('k-carried') } });
    // The fingerprint is the canonical body's: the same body in another key order binds the same way.
    expect((second as { idempotency: { fingerprint: string } }).idempotency.fingerprint).toBe(
      (first as { idempotency: { fingerprint: string } }).idempotency.fingerprint,
    );
    expect(h.calls.some((c) => c.subject === subjects.linksCreate.name)).toBe(false);
  });

  it('sends a create without a key on the plain subject', async () => {
    const res = await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body: { shop_id: 1, amount: '1' } });
    expect(res.status).toBe(201);
    expect(h.calls.map((c) => c.subject)).toEqual([subjects.linksCreate.name]);
  });

  it('marks the answer replayed when the links service answers with the link it kept', async () => {
    const kept = sampleLink();
    h.on(subjects.linksCreateOnce.name, async () => ({ link: kept, replayed: true }));
    const res = await create('k-kept-by-links', { shop_id: 1, amount: '1' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(kept);
    expect(res.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers the links service conflict as 409 idempotency_conflict', async () => {
    h.on(subjects.linksCreateOnce.name, async () => {
      throw idempotencyConflict();
    });
    const res = await create('k-conflict-in-links', { shop_id: 1, amount: '1' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('common.err.idempotency_conflict');
  });
});

describe('Idempotency-Key on cancel', () => {
  const id = '6f1c1f0e-3a7b-4c2d-9e8f-0a1b2c3d4e5f';
  const other = '7a2d2f1e-4b8c-4d3e-8f9a-1b2c3d4e5f60';
  const cancel = (linkId: string, key: string) =>
    h.request('POST', `/merchant/v1/payment-links/${linkId}/cancel`, { headers: { ...keys, 'Idempotency-Key': key }, body: {} });

  it('carries the key to the links service and replays the first answer', async () => {
    const first = await cancel(id, 'c-replay');
    const again = await cancel(id, 'c-replay');
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const sent = h.calls.filter((c) => c.subject === subjects.linksCancelOnce.name);
    expect(sent.map((c) => c.payload)).toEqual([
      { id, idempotency: expect.objectContaining({ route: 'merchant-v1-cancel', key_sha256: sha256('c-replay') }) },
    ]);
  });

  it('binds the key to the link: the same key on another link is 409 idempotency_conflict', async () => {
    expect((await cancel(id, 'c-bound')).status).toBe(200);
    const res = await cancel(other, 'c-bound');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('common.err.idempotency_conflict');
  });
});
