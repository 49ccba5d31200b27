import { subjects } from '@pl/contracts';
import { unavailable } from '@pl/errors';
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

const creates = () => h.calls.filter((c) => c.subject === subjects.linksCreate.name).length;

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
    h.on(subjects.linksCreate.name, async () => {
      started();
      await gate;
      return sampleLink();
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
    h.on(subjects.linksCreate.name, async () => {
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
