import { startServiceProcess, stopServiceProcess, type ServiceProcess } from '../support/processes';
import { httpClient, type ApiResponse, type HttpClient } from '../support/http';
import { startSystem, type TestMerchant, type TestSystem } from '../support/system';
import { steppedUpSession } from '../support/second-factor';

/**
 * A dead credential is dead everywhere within 1 second. Two gateway processes (run from dist/, as in production)
 * share the system's database, Redis and NATS namespace, like two replicas behind one load balancer; the system's
 * shops and links services answer them. A credential is ended on gateway A and used on gateway B, which used it
 * moments before (so B had it cached); B must refuse it within 1 s of the moment the ending call answered on A.
 * Each delay is measured on the real HTTP route, polled every 10 ms, and printed.
 */
jest.setTimeout(60_000);

let sys: TestSystem;
const gateways: ServiceProcess[] = [];
let A: HttpClient;
let B: HttpClient;

beforeAll(async () => {
  // Every 401 while polling counts as a failed authentication from 127.0.0.1, and every session is a login from it.
  sys = await startSystem({
    withoutNotifier: true,
    env: { RATE_LIMIT_AUTH_FAILURES_PER_IP_PER_MINUTE: '100000', RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '1000' },
  });
  // At info level, so the processes write the "started" line they are awaited by.
  for (let i = 0; i < 2; i++) gateways.push(await startServiceProcess('gateway', { ...sys.env, LOG_LEVEL: 'info' }));
  [A, B] = gateways.map((g) => httpClient(`http://127.0.0.1:${g.started.port as number}`)) as [HttpClient, HttpClient];
}, 60_000);

afterAll(async () => {
  for (const g of gateways) await stopServiceProcess(g);
  await sys?.stop();
});

const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
const keysOf = (pair: { public_key: string; api_secret: string }) => ({ 'X-API-Key': pair.public_key, 'X-API-Secret': pair.api_secret });
/** A route an API key pair opens that needs only the shops service. */
const shopsWith = (on: HttpClient, keys: Record<string, string>) => on.get('/merchant/v1/shops', { headers: keys });
const paymentWith = (on: HttpClient, cashierKey: string) => on.post('/api/v1/merchant/payments', { amount: 1 }, { headers: bearer(cashierKey) });

/** A session on `on` that may revoke keys and change the password: stepped up (tests/support/second-factor.ts). */
async function signIn(on: HttpClient, m: TestMerchant): Promise<Record<string, string>> {
  return bearer(await steppedUpSession(on.call, m));
}

/**
 * Calls `probe` every 10 ms until its answer is a 401 or more than `limitMs` have passed since `since`
 * (a `performance.now()`); answers how long after `since` the 401 came, or null when it never did.
 */
async function msUntilRefused(since: number, probe: () => Promise<ApiResponse>, limitMs = 1500): Promise<number | null> {
  for (;;) {
    const res = await probe();
    const elapsed = performance.now() - since;
    if (res.status === 401) return elapsed;
    if (res.status !== 200 && res.status !== 201) throw new Error(`the probe answered ${res.status}: ${res.text}`);
    if (elapsed > limitMs) return null;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function expectWithinOneSecond(what: string, ms: number | null): void {
  console.log(`${what}: refused on the other gateway after ${ms === null ? 'more than 1500' : ms.toFixed(1)} ms`);
  expect({ what, refused: ms !== null && ms <= 1000 }).toEqual({ what, refused: true });
}

/** The merchant's live key pair in the key list: a merchant starts with a test pair too, listed beside it. */
const liveKeyOf = (merchant: TestMerchant, keys: { id: string; public_key: string }[]): { id: string } => {
  const key = keys.find((k) => k.public_key === merchant.apiKey);
  if (!key) throw new Error('the live key pair is not in the list');
  return key;
};

describe('a credential ended on one gateway process', () => {
  it('refuses on B within 1 s an API key revoked on A, though B had just used it', async () => {
    const { merchant } = await sys.merchantWithShop();
    const session = await signIn(A, merchant);
    expect((await shopsWith(B, merchant.keys)).status).toBe(200);
    expect((await shopsWith(B, merchant.keys)).status).toBe(200);
    const key = liveKeyOf(merchant, (await A.get('/api/v1/api-keys', { headers: session })).body.api_keys);
    const revoked = await A.post(`/api/v1/api-keys/${key.id}/revoke`, {}, { headers: session });
    const since = performance.now();
    expect(revoked.status).toBe(200);
    expectWithinOneSecond('revoked API key', await msUntilRefused(since, () => shopsWith(B, merchant.keys)));
  });

  it('keeps a reissued key working on B during its grace period and refuses it there within 1 s of its expires_at', async () => {
    const { merchant } = await sys.merchantWithShop();
    const session = await signIn(A, merchant);
    expect((await shopsWith(B, merchant.keys)).status).toBe(200);
    const key = liveKeyOf(merchant, (await A.get('/api/v1/api-keys', { headers: session })).body.api_keys);
    const reissued = await A.post(`/api/v1/api-keys/${key.id}/reissue`, { grace_minutes: 1 }, { headers: session });
    expect(reissued.status).toBe(201);
    // A minute of grace is too long to wait for in a test: it is cut to 1.5 s in the database, as if the reissue had
    // happened 58.5 s ago. Nothing announces that; B must stop at expires_at by itself.
    const [cut] = await sys.sql<{ expires_at: Date }>(
      `UPDATE gateway.api_keys SET expires_at = now() + interval '1500 milliseconds' WHERE id = $1 RETURNING expires_at`,
      [key.id],
    );
    const expiresAt = (cut as { expires_at: Date }).expires_at;
    expect((await shopsWith(B, merchant.keys)).status).toBe(200);
    expect((await shopsWith(B, merchant.keys)).status).toBe(200);
    expect((await shopsWith(B, keysOf(reissued.body))).status).toBe(200);
    expect(Date.now()).toBeLessThan(expiresAt.getTime()); // those answers came during the grace period
    // The end of the grace period is a moment on the clock, nothing to await: wait for it, then measure from it.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt.getTime() - Date.now())));
    const since = performance.now() - Math.max(0, Date.now() - expiresAt.getTime());
    expectWithinOneSecond('reissued API key at the end of its grace period', await msUntilRefused(since, () => shopsWith(B, merchant.keys)));
    expect((await shopsWith(B, keysOf(reissued.body))).status).toBe(200);
  });

  it('refuses on B within 1 s a cashier key reissued on A; the new key works on B', async () => {
    const { merchant, shop } = await sys.merchantWithShop();
    const session = await signIn(A, merchant);
    expect((await paymentWith(B, shop.cashierKey)).status).toBe(201);
    expect((await paymentWith(B, shop.cashierKey)).status).toBe(201);
    const reissued = await A.post(`/api/v1/shops/${shop.id}/cashier-key/reissue`, {}, { headers: session });
    const since = performance.now();
    expect(reissued.status).toBe(200);
    expectWithinOneSecond('reissued cashier key', await msUntilRefused(since, () => paymentWith(B, shop.cashierKey)));
    expect((await paymentWith(B, reissued.body.cashier_key as string)).status).toBe(201);
  });

  it("ends on B the merchant's other sessions within 1 s of a password change on A; the caller's session stays", async () => {
    const { merchant } = await sys.merchantWithShop();
    const caller = await signIn(A, merchant);
    const others = [await signIn(B, merchant), await signIn(A, merchant)];
    for (const s of [caller, ...others]) expect((await B.get('/api/v1/me', { headers: s })).status).toBe(200);
    const changed = await A.post(
      '/api/v1/auth/password',
      { current_password: merchant.password, new_password: 'a new passphrase' },
      { headers: caller },
    );
    const since = performance.now();
    expect(changed.status).toBe(204);
    for (const [i, s] of others.entries()) {
      const where = i === 0 ? 'opened on B' : 'opened on A';
      expectWithinOneSecond(`session ${where}, ended by a password change`, await msUntilRefused(since, () => B.get('/api/v1/me', { headers: s })));
    }
    expect((await B.get('/api/v1/me', { headers: caller })).status).toBe(200);
    expect((await A.get('/api/v1/me', { headers: caller })).status).toBe(200);
  });
});
