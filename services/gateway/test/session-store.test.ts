import { randomBytes } from 'node:crypto';
import { createLogger } from '@pl/telemetry';
import { createRedis, type Redis } from '../src/data/redis';
import { SessionStore } from '../src/data/session.store';
import { newSessionToken, sessionTokenDigest } from '../src/domain/session-token';

/** Sessions of a user in one account, and the sessions stored before users existed. */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `sess-test-${randomBytes(4).toString('hex')}:`;
let redis: Redis;
let store: SessionStore;

beforeAll(async () => {
  redis = createRedis(REDIS_URL, createLogger('session-store-test', 'silent'));
  await redis.connect();
  store = new SessionStore(redis, prefix, 3600);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(keys);
  await redis.close();
});

it('reads a session stored before users existed as the merchant’s own user, in its account', async () => {
  const token = newSessionToken();
  const expires = Date.now() + 60_000;
  await redis.set(`${prefix}session:${sessionTokenDigest(token)}`, JSON.stringify({ merchant_id: 'm-1', expires, epoch: 2 }));
  expect(await store.find(token)).toEqual({ userId: 'm-1', merchantId: 'm-1', expiresAt: new Date(expires), epoch: 2, secondFactorAt: null });
});

it('moves a session to another account and epoch, keeping its user and expiry', async () => {
  const { token, session } = await store.create('u-1', 'm-1', 0);
  await store.switchAccount(token, 'm-2');
  await store.moveToEpoch(token, 3);
  expect(await store.find(token)).toEqual({ userId: 'u-1', merchantId: 'm-2', expiresAt: session.expiresAt, epoch: 3, secondFactorAt: null });
  await store.delete(token);
  await store.switchAccount(token, 'm-3');
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
