import { randomBytes } from 'node:crypto';
import { createLogger } from '@pl/telemetry';
import { createRedis, type Redis } from '../src/data/redis';
import { SEEN_EVERY_MS, SessionStore } from '../src/data/session.store';
import { runAsRequest } from '../src/domain/request-context';
import { newSessionToken, sessionTokenDigest } from '../src/domain/session-token';

/** Sessions of a user in one account, their idle clock and index, and the sessions stored before them. */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `sess-test-${randomBytes(4).toString('hex')}:`;
const TTL_SECONDS = 3600;
const IDLE_SECONDS = 600;
let redis: Redis;
let store: SessionStore;

beforeAll(async () => {
  redis = createRedis(REDIS_URL, createLogger('session-store-test', 'silent'));
  await redis.connect();
  store = new SessionStore(redis, prefix, TTL_SECONDS, IDLE_SECONDS);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(keys);
  await redis.close();
});

const stored = async (token: string): Promise<Record<string, unknown>> =>
  JSON.parse((await redis.get(`${prefix}session:${sessionTokenDigest(token)}`)) ?? 'null') as Record<string, unknown>;
const pttl = (token: string): Promise<number> => redis.pTTL(`${prefix}session:${sessionTokenDigest(token)}`);
const user = (): string => `u-${randomBytes(4).toString('hex')}`;

it('reads a session stored before users existed as the merchant’s own user, in its account', async () => {
  const token = newSessionToken();
  const expires = Date.now() + 60_000;
  await redis.set(`${prefix}session:${sessionTokenDigest(token)}`, JSON.stringify({ merchant_id: 'm-1', expires, epoch: 2 }));
  expect(await store.find(token)).toEqual({
    userId: 'm-1',
    merchantId: 'm-1',
    expiresAt: new Date(expires),
    epoch: 2,
    id: null,
    lastSeen: null,
    secondFactorAt: null,
  });
});

it('moves a session to another account and epoch, keeping its user, expiry, id and client', async () => {
  const { token, session } = await runAsRequest({ ip: '198.51.100.7', userAgent: 'Browser/1' }, () => store.create('u-1', 'm-1', 0));
  await store.switchAccount(token, 'm-2');
  await store.moveToEpoch(token, 3);
  expect(await store.find(token)).toEqual({ ...session, merchantId: 'm-2', epoch: 3 });
  expect(await stored(token)).toMatchObject({ ip: '198.51.100.7', ua: 'Browser/1', id: session.id });
  await store.delete(token);
  await store.switchAccount(token, 'm-3');
  expect(await store.find(token)).toBeNull();
  expect(await store.listOf('u-1')).toEqual([]);
});

it('keeps a new session for the idle timeout, and lets the absolute lifetime bound it', async () => {
  const { token } = await store.create(user(), 'm-1');
  expect(await pttl(token)).toBeGreaterThan((IDLE_SECONDS - 5) * 1000);
  expect(await pttl(token)).toBeLessThanOrEqual(IDLE_SECONDS * 1000);
  const short = new SessionStore(redis, prefix, 60, IDLE_SECONDS);
  const bounded = await short.create(user(), 'm-1');
  expect(await pttl(bounded.token)).toBeLessThanOrEqual(60_000);
});

it('ends a session unused for the idle timeout, and moves its clock on use at most once a minute', async () => {
  const t0 = Date.now();
  const { token, session } = await store.create(user(), 'm-1', 0, new Date(t0));
  // Used within the minute: nothing is written.
  await store.markSeen(token, session, t0 + SEEN_EVERY_MS - 1);
  expect((await stored(token)).last_seen).toBe(t0);
  // Idle for the whole timeout since the clock last moved: over, whatever Redis still holds.
  expect(await store.find(token, new Date(t0 + IDLE_SECONDS * 1000))).toBeNull();
  expect(await store.find(token, new Date(t0 + IDLE_SECONDS * 1000 - 1))).not.toBeNull();
  // Used a minute later: the clock moves, and the session lives a whole idle timeout from then.
  const t1 = t0 + SEEN_EVERY_MS;
  await store.markSeen(token, session, t1);
  expect((await stored(token)).last_seen).toBe(t1);
  expect(await store.find(token, new Date(t0 + IDLE_SECONDS * 1000))).not.toBeNull();
  expect(await store.find(token, new Date(t1 + IDLE_SECONDS * 1000))).toBeNull();
  // Never past the absolute end, however often used.
  expect(await store.find(token, new Date(t0 + TTL_SECONDS * 1000))).toBeNull();
});

it('lists a user’s sessions by an id that is neither the token nor its digest, and ends them by it', async () => {
  const u = user();
  const a = await runAsRequest({ ip: '203.0.113.1', userAgent: 'A' }, () => store.create(u, 'm-1', 0, new Date(Date.now() - 1000)));
  const b = await runAsRequest({ ip: '203.0.113.2', userAgent: 'B' }, () => store.create(u, 'm-2', 1));
  await store.create(user(), 'm-1');
  const listed = await store.listOf(u);
  expect(listed.map((s) => [s.id, s.merchantId, s.epoch, s.ip, s.userAgent])).toEqual([
    [b.session.id, 'm-2', 1, '203.0.113.2', 'B'],
    [a.session.id, 'm-1', 0, '203.0.113.1', 'A'],
  ]);
  for (const { token, session } of [a, b]) {
    expect(session.id).not.toContain(token);
    expect(session.id).not.toBe(sessionTokenDigest(token));
  }
  expect(await store.end(u, [a.session.id!, 'not-a-session'])).toBe(1);
  expect(await store.find(a.token)).toBeNull();
  expect((await store.listOf(u)).map((s) => s.id)).toEqual([b.session.id]);
  // An ended session's index entry is dropped when the list is read.
  await redis.del(`${prefix}session:${sessionTokenDigest(b.token)}`);
  expect(await store.listOf(u)).toEqual([]);
  expect(await redis.hLen(`${prefix}user-sessions:${u}`)).toBe(0);
});

it('adopts a session stored before ids existed on its first use: listed and revocable from then on', async () => {
  const u = user();
  const token = newSessionToken();
  const expires = Date.now() + 60_000;
  await redis.set(`${prefix}session:${sessionTokenDigest(token)}`, JSON.stringify({ merchant_id: 'm-1', user_id: u, expires, epoch: 0 }), {
    PX: 60_000,
  });
  const legacy = await store.find(token);
  await store.markSeen(token, legacy!);
  const [listed] = await store.listOf(u);
  const adopted = await store.find(token);
  expect(listed?.id).toBe(adopted?.id);
  expect(adopted?.expiresAt).toEqual(new Date(expires));
  expect(await store.end(u, [listed!.id])).toBe(1);
  expect(await store.find(token)).toBeNull();
});

it('keeps when a second factor was last verified through later rewrites, and never brings an ended session back', async () => {
  const { token } = await store.create('u-1', 'm-1', 0);
  const at = new Date('2026-11-29T10:00:00.000Z');
  await store.recordSecondFactor(token, at);
  await store.switchAccount(token, 'm-2');
  await store.moveToEpoch(token, 1);
  expect((await store.find(token))?.secondFactorAt).toEqual(at);
  await store.delete(token);
  await store.recordSecondFactor(token, at);
  expect(await store.find(token)).toBeNull();
});
