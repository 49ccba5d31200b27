import { startHarness, type Harness } from './harness';

let h: Harness;
let keys: Record<string, string>;
let credentials: { email: string; password: string };
beforeAll(async () => {
  h = await startHarness({ faults: true });
  const m = await h.merchant();
  keys = m.keys;
  credentials = { email: m.email, password: m.password };
});
afterAll(() => h.stop());

describe('dependency outages', () => {
  it('answers 503 with Retry-After to sign-in while Redis is down, stays ready, and recovers by itself', async () => {
    const proxy = h.redisProxy!;
    proxy.down();
    const down = await h.request('POST', '/api/v1/auth/login', { body: credentials });
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('common.err.unavailable');
    expect(down.headers.get('retry-after')).toBe('1');
    // Still ready: the API-key and cashier routes need no Redis, so the pod stays in the Service.
    const readyDown = await fetch(`http://127.0.0.1:${h.opsPort}/readyz`);
    expect(readyDown.status).toBe(200);
    proxy.up();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await h.request('POST', '/api/v1/auth/login', { body: credentials })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });

  it('answers 503 with Retry-After when nothing serves the links subject', async () => {
    await h.stopResponders();
    const res = await h.request('GET', '/merchant/v1/payment-links/3b241101-e2bb-4255-8caf-4136c566a962', { headers: keys });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('common.err.unavailable');
    expect(res.headers.get('retry-after')).toBe('1');
  });
});
