import { randomUUID } from 'node:crypto';
import { expectError } from '../../../tests/support/http';
import { steppedUpSession } from '../../../tests/support/second-factor';
import { sessionTokenDigest } from '../src/domain/session-token';
import { bearer, startGateways, type Gateways } from './gateways';

jest.setTimeout(30_000);

/** Two replicas behind one database and Redis: a session ended on one must be over on the other at once. */
let g: Gateways;
beforeAll(async () => {
  g = await startGateways(2);
});
afterAll(() => g?.stop());

type Call = Gateways['clients'][number];
const on =
  (replica: number): Call =>
  (method, path, init) =>
    (g.clients[replica] as Call)(method, path, init);
const first = on(0);
const second = on(1);

interface Listed {
  id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  current: boolean;
}

/** Signs in from `ip` with `agent` on replica `replica`; the bearer headers of the session. */
async function signIn(m: { email: string; password: string }, ip: string, agent: string, replica = 0): Promise<Record<string, string>> {
  const res = await on(replica)('POST', '/api/v1/auth/login', {
    headers: { 'X-Forwarded-For': ip, 'User-Agent': agent },
    body: { email: m.email, password: m.password },
  });
  expect(res.status).toBe(200);
  return bearer(res.body.session_token as string);
}

const list = async (auth: Record<string, string>, call: Call = first): Promise<Listed[]> => {
  const res = await call('GET', '/api/v1/me/sessions', { headers: auth });
  expect(res.status).toBe(200);
  return res.body.sessions as Listed[];
};

describe('the user’s sessions', () => {
  it('lists each with its address, user agent, times and which is current, never a token', async () => {
    const m = await g.merchant();
    const laptop = await signIn(m, '198.51.100.21', 'Laptop browser');
    const phone = await signIn(m, '198.51.100.22', 'Phone browser', 1);
    const sessions = await list(phone, second);
    expect(sessions.map((s) => [s.ip, s.user_agent, s.current])).toEqual([
      ['198.51.100.22', 'Phone browser', true],
      ['198.51.100.21', 'Laptop browser', false],
    ]);
    for (const s of sessions) expect(s.last_seen_at >= s.created_at).toBe(true);
    // Neither token is in the answer, nor derivable from an id: ids are random UUIDs.
    const text = JSON.stringify(sessions);
    for (const auth of [laptop, phone]) expect(text).not.toContain(auth.Authorization!.slice('Bearer '.length));
    expect((await list(laptop)).map((s) => s.current)).toEqual([false, true]);
  });

  it('ends another session by its id at once on every replica; an id not the user’s is 404', async () => {
    const m = await g.merchant();
    const other = await g.merchant();
    const laptop = await signIn(m, '198.51.100.31', 'Laptop');
    const phone = await signIn(m, '198.51.100.32', 'Phone');
    const theirs = await signIn(other, '198.51.100.33', 'Theirs');
    const [phoneSession, laptopSession] = await list(phone);
    expect((await second('GET', '/api/v1/me', { headers: laptop })).status).toBe(200);
    const theirId = (await list(theirs))[0]!.id;
    expectError(await first('DELETE', `/api/v1/me/sessions/${theirId}`, { headers: phone }), 404, 'common.err.not_found');
    expectError(await first('DELETE', `/api/v1/me/sessions/${randomUUID()}`, { headers: phone }), 404, 'common.err.not_found');
    expectError(await first('DELETE', '/api/v1/me/sessions/not-an-id', { headers: phone }), 404, 'common.err.not_found');
    expect((await list(theirs)).map((s) => s.id)).toEqual([theirId]);

    expect((await first('DELETE', `/api/v1/me/sessions/${laptopSession!.id}`, { headers: phone })).status).toBe(204);
    expectError(await second('GET', '/api/v1/me', { headers: laptop }), 401, 'common.err.unauthorized');
    expectError(await first('GET', '/api/v1/me', { headers: laptop }), 401, 'common.err.unauthorized');
    expect((await list(phone)).map((s) => s.id)).toEqual([phoneSession!.id]);
    expectError(await first('DELETE', `/api/v1/me/sessions/${laptopSession!.id}`, { headers: phone }), 404, 'common.err.not_found');
  });

  it('ends the current session like a sign-out, clearing the cookie', async () => {
    const m = await g.merchant();
    const auth = await signIn(m, '198.51.100.41', 'Browser');
    const [current] = await list(auth);
    const res = await second('DELETE', `/api/v1/me/sessions/${current!.id}`, { headers: auth });
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie()).toEqual(expect.arrayContaining([expect.stringMatching(/^sid=;/)]));
    expectError(await first('GET', '/api/v1/me', { headers: auth }), 401, 'common.err.unauthorized');
  });

  it('ends every other session of the user, on every replica, and keeps this one', async () => {
    const m = await g.merchant();
    const others = [await signIn(m, '198.51.100.51', 'One'), await signIn(m, '198.51.100.52', 'Two', 1)];
    const keep = await signIn(m, '198.51.100.53', 'Kept');
    const stranger = await signIn(await g.merchant(), '198.51.100.54', 'Stranger');
    expect((await second('POST', '/api/v1/me/sessions/revoke-others', { headers: keep })).status).toBe(204);
    for (const auth of others) {
      expectError(await first('GET', '/api/v1/me', { headers: auth }), 401, 'common.err.unauthorized');
      expectError(await second('GET', '/api/v1/me', { headers: auth }), 401, 'common.err.unauthorized');
    }
    expect((await list(keep)).map((s) => [s.user_agent, s.current])).toEqual([['Kept', true]]);
    expect((await first('GET', '/api/v1/me', { headers: stranger })).status).toBe(200);
  });

  it('lists no session a password change ended', async () => {
    const m = await g.merchant();
    const old = await signIn(m, '198.51.100.61', 'Old');
    // Changing the password needs a second factor verified within 10 minutes (step-up): the changer has one.
    const changer = bearer(await steppedUpSession(first, m, { 'X-Forwarded-For': '198.51.100.62', 'User-Agent': 'Changer' }));
    const changed = await first('POST', '/api/v1/auth/password', {
      headers: changer,
      body: { current_password: m.password, new_password: 'a brand new passphrase 61' },
    });
    expect(changed.status).toBe(204);
    expectError(await first('GET', '/api/v1/me', { headers: old }), 401, 'common.err.unauthorized');
    expect((await list(changer)).map((s) => s.user_agent)).toEqual(['Changer']);
  });
});

describe('the idle timeout', () => {
  const tokenOf = (auth: Record<string, string>): string => auth.Authorization!.slice('Bearer '.length);
  const keyOf = (auth: Record<string, string>): string => `${g.keyPrefix}session:${sessionTokenDigest(tokenOf(auth))}`;
  const record = async (auth: Record<string, string>): Promise<{ last_seen: number }> =>
    JSON.parse((await g.redis.get(keyOf(auth))) ?? 'null') as { last_seen: number };
  /** Moves the session's idle clock back, as if it had last been used `ms` ago (the key's TTL is left as it is). */
  const lastUsedAgo = async (auth: Record<string, string>, ms: number): Promise<number> => {
    const stored = (await record(auth)) as unknown as Record<string, unknown>;
    const at = Date.now() - ms;
    await g.redis.set(keyOf(auth), JSON.stringify({ ...stored, last_seen: at }), { KEEPTTL: true });
    return at;
  };

  it('writes the clock at most once a minute, and then gives the session a whole idle timeout again', async () => {
    const m = await g.merchant();
    const auth = await signIn(m, '198.51.100.71', 'Idle test');
    const recent = await lastUsedAgo(auth, 30_000);
    expect((await first('GET', '/api/v1/me', { headers: auth })).status).toBe(200);
    expect((await record(auth)).last_seen).toBe(recent);
    const old = await lastUsedAgo(auth, 61_000);
    await g.redis.pExpire(keyOf(auth), 10_000);
    expect((await second('GET', '/api/v1/me', { headers: auth })).status).toBe(200);
    expect((await record(auth)).last_seen).toBeGreaterThan(old + 60_000);
    // The default idle timeout is 2 hours: the key now lives that long again.
    expect(await g.redis.pTTL(keyOf(auth))).toBeGreaterThan(7_190_000);
    // The list shows when it was last seen, as the clock was last written.
    const listed = (await list(auth))[0]!;
    expect(Math.abs(Date.parse(listed.last_seen_at) - (await record(auth)).last_seen)).toBeLessThan(1000);
  });

  it('ends a session unused for 2 hours on every replica, though it is younger than 12', async () => {
    const m = await g.merchant();
    const auth = await signIn(m, '198.51.100.72', 'Left open');
    const kept = await signIn(m, '198.51.100.73', 'In use');
    await lastUsedAgo(auth, 2 * 3600 * 1000);
    expectError(await first('GET', '/api/v1/me', { headers: auth }), 401, 'common.err.unauthorized');
    expectError(await second('GET', '/api/v1/me', { headers: auth }), 401, 'common.err.unauthorized');
    expect((await list(kept)).map((s) => s.user_agent)).toEqual(['In use']);
  });
});
