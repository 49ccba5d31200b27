// A live provider down, across the real services and the real Raiffeisen SBP adapter against its local fake
// (docs/providers.md, "Outages"): 5xx and hanging answers make select a 503 with Retry-After and leave the link as it
// was; after PROVIDER_BREAKER_FAILURES of them the circuit opens and select is answered at once without reaching the
// fake; Heleket and every other route are unaffected; after the cool-down one probe succeeds and selects work again.
// The links service's metrics (calls, circuit state, unfinished attempts) say the same.
import { eventually } from '@pl/testing';
import { expectError, type ApiResponse } from '../support/http';
import { scrapedSum } from '../support/metrics';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { createLiveLink } from '../support/live-links';

const FAILURES = 3;
// Long enough that the checks made while the circuit is open finish before a probe may pass, even on a busy machine.
const COOLDOWN_MS = 6000;

let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;

beforeAll(async () => {
  sys = await startSystem({
    providerFakes: true,
    env: { PROVIDER_BREAKER_FAILURES: String(FAILURES), PROVIDER_BREAKER_COOLDOWN_MS: String(COOLDOWN_MS), PROVIDER_REQUEST_TIMEOUT_MS: '500' },
  });
  merchant = await sys.merchant();
  shop = await sys.shop(merchant.id);
});
afterAll(async () => {
  await sys?.stop();
});

const liveLink = (): Promise<string> => createLiveLink(sys, merchant, shop, '990.00', 'down');
const selectSbp = (id: string): Promise<ApiResponse> => sys.http.post(`/p/${id}/select`, { method: 'sbp' });
const merchantView = async (id: string) => (await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys })).body;
const registered = () => sys.fakes.raiffeisen.count('register');
const linksMetric = (name: string, labels: Record<string, string>) => scrapedSum(sys.linksOpsPort, name, labels);

const expectUnavailable = (res: ApiResponse): void => {
  expectError(res, 503, 'payment_link.err.provider_unavailable');
  expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
};

describe('Raiffeisen SBP down', () => {
  it('503 with Retry-After while it fails, then the circuit answers at once; Heleket and other routes unaffected; a probe after the cool-down closes it', async () => {
    // Up first: the link shows a QR of Raiffeisen's.
    const shown = await liveLink();
    expect((await selectSbp(shown)).status).toBe(200);
    const before = await merchantView(shown);
    expect(before).toMatchObject({ gateway_provider: 'raiffeisen_sbp', gateway_payment_id: expect.any(String) });
    expect(await linksMetric('provider_circuit_state', { provider: 'raiffeisen_sbp' })).toBe(0);

    // Down: two 5xx answers and one that hangs past PROVIDER_REQUEST_TIMEOUT_MS, each a 503 reaching the fake.
    sys.fakes.raiffeisen.fail('register', { type: 'status', status: 503 }, FAILURES - 1);
    sys.fakes.raiffeisen.fail('register', { type: 'hang', processed: false }, 1);
    const reached = registered();
    expectUnavailable(await selectSbp(shown));
    const after = await merchantView(shown);
    expect({ ...after, updated_at: null }).toEqual({ ...before, updated_at: null });
    for (let i = 1; i < FAILURES; i++) expectUnavailable(await selectSbp(await liveLink()));
    expect(registered()).toBe(reached + FAILURES);

    // Open: select is answered 503 at once, the fake is not asked, and the metrics and the link say so.
    const waiting = await liveLink();
    expectUnavailable(await selectSbp(waiting));
    expectUnavailable(await selectSbp(waiting));
    expect(registered()).toBe(reached + FAILURES);
    expect(await linksMetric('provider_circuit_state', { provider: 'raiffeisen_sbp' })).toBe(2);
    expect(
      await linksMetric('provider_call_duration_seconds_count', { provider: 'raiffeisen_sbp', operation: 'create_payment', outcome: 'circuit_open' }),
    ).toBe(2);
    expect(
      await linksMetric('provider_call_duration_seconds_count', { provider: 'raiffeisen_sbp', operation: 'create_payment', outcome: 'unavailable' }),
    ).toBe(FAILURES);
    expect(await merchantView(waiting)).toMatchObject({ status: 'pending', gateway_provider: null, gateway_payment_id: null });
    // Unfinished attempts: the shown link's paid-for QR (pending) and the five whose outcome is unknown (three that
    // reached the fake, two the circuit answered), none of them past its link's expiry.
    const live = { provider: 'raiffeisen_sbp', mode: 'live' };
    expect(await linksMetric('payment_attempts_unfinished', live)).toBe(6);
    expect(await linksMetric('payment_attempts_unfinished_past_expiry_seconds', live)).toBe(0);

    // Heleket has its own circuit, closed; creating, reading and listing links work as ever.
    const crypto = await sys.http.post(`/p/${waiting}/select`, { method: 'crypto', network: 'USDT-TRC20' });
    expect(crypto.status).toBe(200);
    expect(crypto.body).toMatchObject({ gateway_provider: 'heleket' });
    expect(await linksMetric('provider_circuit_state', { provider: 'heleket' })).toBe(0);
    expect((await sys.http.get(`/merchant/v1/payment-links/${shown}`, { headers: merchant.keys })).status).toBe(200);
    expect((await sys.http.get(`/merchant/v1/payment-links?shop_id=${shop.id}`, { headers: merchant.keys })).status).toBe(200);

    // Recovered (the fault queue is spent): after the cool-down the first select is the probe, it succeeds, and the
    // circuit closes. Polled slowly: each refused select is an attempt of the link.
    await eventually(async () => (await selectSbp(waiting)).status === 200, 'a select after the cool-down', COOLDOWN_MS * 4, 1000);
    expect(registered()).toBe(reached + FAILURES + 1);
    expect(await merchantView(waiting)).toMatchObject({ gateway_provider: 'raiffeisen_sbp' });
    expect(await linksMetric('provider_circuit_state', { provider: 'raiffeisen_sbp' })).toBe(0);
    expect((await selectSbp(await liveLink())).status).toBe(200);
    expect(registered()).toBe(reached + FAILURES + 2);
  }, 90_000);
});
