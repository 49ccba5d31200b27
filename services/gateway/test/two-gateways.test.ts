import { bearer, msUntil, startGateways, type Gateways } from './gateways';

jest.setTimeout(30_000);

/**
 * Two gateway replicas on one database, Redis and NATS namespace: a credential ended on one must stop working
 * on the other within 1 second, although the other remembered it moments before. Each delay is measured on the
 * real HTTP route, from the moment the ending call answered.
 */
let g: Gateways;
beforeAll(async () => {
  g = await startGateways(2);
});
afterAll(() => g?.stop());

const [A, B] = [0, 1];
const on = (i: number) => g.clients[i] as Gateways['clients'][number];
const links = (i: number, keys: Record<string, string>) => on(i)('GET', '/merchant/v1/payment-links', { headers: keys });
const report = (what: string, ms: number | null) =>
  console.log(`${what}: refused on the other gateway after ${ms === null ? 'never' : ms.toFixed(1)} ms`);

describe('two gateway replicas', () => {
  it('refuses a key revoked on A on B within 1 s, though B had just remembered it', async () => {
    const m = await g.merchant();
    const session = bearer(await g.signIn(m, A));
    expect((await links(B, m.keys)).status).toBe(200);
    expect((await links(B, m.keys)).status).toBe(200);
    const [key] = (await on(A)('GET', '/api/v1/api-keys', { headers: session })).body.api_keys;
    const revoked = await on(A)('POST', `/api/v1/api-keys/${key.id}/revoke`, { headers: session, body: {} });
    const since = performance.now();
    expect(revoked.status).toBe(200);
    const ms = await msUntil(
      since,
      () => links(B, m.keys),
      (res) => res.status === 401,
    );
    report('revoked key', ms);
    expect(ms).not.toBeNull();
    expect(ms).toBeLessThanOrEqual(1000);
  });

  it('refuses on B a key whose grace period ended, within 1 s of its expires_at', async () => {
    const m = await g.merchant();
    const session = bearer(await g.signIn(m, A));
    expect((await links(B, m.keys)).status).toBe(200);
    const [key] = (await on(A)('GET', '/api/v1/api-keys', { headers: session })).body.api_keys;
    const reissued = await on(A)('POST', `/api/v1/api-keys/${key.id}/reissue`, { headers: session, body: { grace_minutes: 1 } });
    expect(reissued.status).toBe(201);
    // A minute of grace is too long to wait for in a test: the grace is cut to 1.5 s in the database, as if the
    // reissue had happened 58.5 s ago. Nothing announces that; B must stop at expires_at by itself.
    const [cut] = await g.db.query<{ expires_at: Date }>(
      `UPDATE api_keys SET expires_at = now() + interval '1500 milliseconds' WHERE id = $1 RETURNING expires_at`,
      [key.id],
    );
    const expiresAt = (cut as { expires_at: Date }).expires_at;
    expect((await links(B, m.keys)).status).toBe(200);
    expect((await links(B, m.keys)).status).toBe(200);
    const untilExpiry = expiresAt.getTime() - Date.now();
    // Wait for the end of the grace period (a clock event, nothing to await), then measure from it.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, untilExpiry)));
    const since = performance.now() - Math.max(0, Date.now() - expiresAt.getTime());
    const ms = await msUntil(
      since,
      () => links(B, m.keys),
      (res) => res.status === 401,
    );
    report('key at the end of its grace period', ms);
    expect(ms).not.toBeNull();
    expect(ms).toBeLessThanOrEqual(1000);
    expect((await links(B, { 'X-API-Key': reissued.body.public_key, 'X-API-Secret': reissued.body.api_secret })).status).toBe(200);
  });

  it('ends on B every other session of a merchant whose password changed on A, within 1 s; the caller stays', async () => {
    const m = await g.merchant();
    const caller = bearer(await g.signIn(m, A));
    const others = [bearer(await g.signIn(m, B)), bearer(await g.signIn(m, A))];
    for (const s of others) expect((await on(B)('GET', '/api/v1/me', { headers: s })).status).toBe(200);
    const changed = await on(A)('POST', '/api/v1/auth/password', {
      headers: caller,
      body: { current_password: m.password, new_password: 'a new passphrase' },
    });
    const since = performance.now();
    expect(changed.status).toBe(204);
    for (const s of others) {
      const ms = await msUntil(
        since,
        () => on(B)('GET', '/api/v1/me', { headers: s }),
        (res) => res.status === 401,
      );
      report('session ended by a password change', ms);
      expect(ms).not.toBeNull();
      expect(ms).toBeLessThanOrEqual(1000);
    }
    expect((await on(B)('GET', '/api/v1/me', { headers: caller })).status).toBe(200);
  });
});
