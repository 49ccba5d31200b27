import { subjects } from '@pl/contracts';
import { startHarness, type Harness } from './harness';

jest.setTimeout(30_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());

/** The gateway keeps verified API key pairs in memory for a few seconds; a wrong secret must never ride on that. */
describe('API key pairs remembered by the gateway', () => {
  it('refuses a wrong secret right after the right one was accepted and remembered, and still accepts the right one', async () => {
    const m = await h.merchant();
    const list = (headers: Record<string, string>) => h.request('GET', '/merchant/v1/payment-links', { headers });
    expect((await list(m.keys)).status).toBe(200);
    expect((await list(m.keys)).status).toBe(200);
    const secret = m.keys['X-API-Secret'];
    // The same secret but for its last character: same length, same shape.
    const wrong = await list({ ...m.keys, 'X-API-Secret': `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('common.err.unauthorized');
    expect((await list({ ...m.keys, 'X-API-Secret': 'sk_live_wrong' })).status).toBe(401);
    expect((await list(m.keys)).status).toBe(200);
  });

  it("does not let one merchant's remembered pair answer for another key", async () => {
    const [a, b] = [await h.merchant(), await h.merchant()];
    expect((await h.request('GET', '/merchant/v1/payment-links', { headers: a.keys })).status).toBe(200);
    const crossed = { 'X-API-Key': b.keys['X-API-Key'], 'X-API-Secret': a.keys['X-API-Secret'] };
    expect((await h.request('GET', '/merchant/v1/payment-links', { headers: crossed })).status).toBe(401);
  });

  it("never answers one mode's key with the other mode's remembered pair", async () => {
    const m = await h.merchant();
    h.reset();
    const list = (headers: Record<string, string>) => h.request('GET', '/merchant/v1/payment-links', { headers });
    // Both pairs remembered: each is its own entry, under its own public key.
    expect((await list(m.keys)).status).toBe(200);
    expect((await list(m.testKeys)).status).toBe(200);
    const testSecretOnLiveKey = { 'X-API-Key': m.keys['X-API-Key'], 'X-API-Secret': `sk_live_${m.testKeys['X-API-Secret'].slice(8)}` };
    expect((await list(testSecretOnLiveKey)).status).toBe(401);
    const liveSecretOnTestKey = { 'X-API-Key': m.testKeys['X-API-Key'], 'X-API-Secret': `sk_test_${m.keys['X-API-Secret'].slice(8)}` };
    expect((await list(liveSecretOnTestKey)).status).toBe(401);
    expect(h.calls.filter((c) => c.subject === subjects.linksList.name).map((c) => (c.identity as { mode: string }).mode)).toEqual(['live', 'test']);
  });
});
