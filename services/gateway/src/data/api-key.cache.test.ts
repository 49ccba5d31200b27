import { ApiKeyCache, type ApiKeyLookup } from './api-key.cache';
import type { Merchant } from './account.repository';

const merchant: Merchant = {
  id: '7d3c1c52-5a8e-4a53-9b7e-2f1a3c4d5e6f',
  email: 'm@example.com',
  emailConfirmed: true,
  createdAt: new Date('2026-11-01T00:00:00Z'),
  name: 'm@example.com',
};
const KEY = 'pk_live_key';
const SECRET = 'sk_live_right';

/** The database as the cache sees it: one active pair, and a count of the questions asked. */
function database(): ApiKeyLookup & { asked: number; revoked: boolean } {
  const db = {
    asked: 0,
    revoked: false,
    async findByApiKey(key: string, secret: string): Promise<Merchant | null> {
      db.asked += 1;
      return !db.revoked && key === KEY && secret === SECRET ? merchant : null;
    },
  };
  return db;
}

describe('ApiKeyCache', () => {
  let clock = 0;
  const now = (): number => clock;
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('answers a pair it verified from memory until the TTL runs out, then asks the database again', async () => {
    const db = database();
    const cache = new ApiKeyCache(db, { ttlMs: 10_000, maxEntries: 10, now });
    expect(await cache.findByApiKey(KEY, SECRET)).toEqual(merchant);
    clock += 9_999;
    expect(await cache.findByApiKey(KEY, SECRET)).toEqual(merchant);
    expect(db.asked).toBe(1);
    clock += 1;
    db.revoked = true;
    expect(await cache.findByApiKey(KEY, SECRET)).toBeNull();
    expect(db.asked).toBe(2);
  });

  it('refuses a wrong secret right after the right one was remembered, and keeps serving the right one', async () => {
    const db = database();
    const cache = new ApiKeyCache(db, { ttlMs: 10_000, maxEntries: 10, now });
    expect(await cache.findByApiKey(KEY, SECRET)).toEqual(merchant);
    expect(await cache.findByApiKey(KEY, 'sk_live_wrong')).toBeNull();
    expect(await cache.findByApiKey(KEY, `${SECRET}x`)).toBeNull();
    expect(await cache.findByApiKey(KEY, '')).toBeNull();
    expect(await cache.findByApiKey(KEY, SECRET)).toEqual(merchant);
    // Each wrong secret went to the database; the right one did not go again.
    expect(db.asked).toBe(4);
  });

  it('remembers no refusal: a pair that starts working is accepted at once', async () => {
    const db = database();
    db.revoked = true;
    const cache = new ApiKeyCache(db, { ttlMs: 10_000, maxEntries: 10, now });
    expect(await cache.findByApiKey(KEY, SECRET)).toBeNull();
    db.revoked = false;
    expect(await cache.findByApiKey(KEY, SECRET)).toEqual(merchant);
  });

  it('asks the database once for concurrent requests of one pair, and separately for another secret', async () => {
    const db = database();
    const cache = new ApiKeyCache(db, { ttlMs: 10_000, maxEntries: 10, now });
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, () => cache.findByApiKey(KEY, SECRET)),
      cache.findByApiKey(KEY, 'sk_live_wrong'),
    ]);
    expect(answers.slice(0, 20).every((m) => m?.id === merchant.id)).toBe(true);
    expect(answers[20]).toBeNull();
    expect(db.asked).toBe(2);
  });

  it('keeps at most maxEntries pairs, dropping the one used longest ago', async () => {
    const asked: string[] = [];
    const source: ApiKeyLookup = {
      async findByApiKey(key) {
        asked.push(key);
        return { ...merchant, id: key };
      },
    };
    const cache = new ApiKeyCache(source, { ttlMs: 10_000, maxEntries: 2, now });
    for (const key of ['a', 'b', 'c']) await cache.findByApiKey(key, SECRET);
    expect(cache.size).toBe(2);
    await cache.findByApiKey('c', SECRET);
    await cache.findByApiKey('b', SECRET);
    await cache.findByApiKey('a', SECRET);
    expect(asked).toEqual(['a', 'b', 'c', 'a']);
    // 'b' was used after 'c', so 'c' went for 'a' and 'b' is still here.
    await cache.findByApiKey('b', SECRET);
    await cache.findByApiKey('c', SECRET);
    expect(asked).toEqual(['a', 'b', 'c', 'a', 'c']);
  });

  it('never serves a pair past its key expiry, even within the TTL', async () => {
    const db = database();
    const source = {
      ...db,
      findByApiKey: async (k: string, sec: string) => {
        const found = await db.findByApiKey(k, sec);
        return found && { ...found, keyExpiresAt: new Date(clock + 500) };
      },
    };
    const cache = new ApiKeyCache(source, { ttlMs: 10_000, maxEntries: 10, now });
    expect(await cache.findByApiKey(KEY, SECRET)).toEqual(merchant);
    clock += 499;
    expect(cache.remembered(KEY, SECRET)).toEqual(merchant);
    clock += 1;
    expect(cache.remembered(KEY, SECRET)).toBeUndefined();
  });

  it('forgets an evicted key at once and asks the database again', async () => {
    const db = database();
    const cache = new ApiKeyCache(db, { ttlMs: 10_000, maxEntries: 10, now });
    await cache.findByApiKey(KEY, SECRET);
    db.revoked = true;
    cache.evict(KEY);
    expect(cache.remembered(KEY, SECRET)).toBeUndefined();
    expect(await cache.findByApiKey(KEY, SECRET)).toBeNull();
  });

  it('does not keep the answer of a look-up that was under way when an eviction came', async () => {
    let release: (m: Merchant) => void = () => undefined;
    const source = { findByApiKey: () => new Promise<Merchant>((resolve) => (release = resolve)) };
    const cache = new ApiKeyCache(source, { ttlMs: 10_000, maxEntries: 10, now });
    const pending = cache.findByApiKey(KEY, SECRET);
    cache.evict(KEY);
    release(merchant);
    expect(await pending).toEqual(merchant);
    expect(cache.size).toBe(0);
  });

  it('keeps nothing while not live (bus down) and starts from empty when live again', async () => {
    const db = database();
    const cache = new ApiKeyCache(db, { ttlMs: 10_000, maxEntries: 10, now });
    await cache.findByApiKey(KEY, SECRET);
    cache.setLive(false);
    expect(cache.size).toBe(0);
    await cache.findByApiKey(KEY, SECRET);
    expect(cache.size).toBe(0);
    cache.setLive(true);
    await cache.findByApiKey(KEY, SECRET);
    expect(cache.size).toBe(1);
  });

  it('reports every accepted use, from memory or not, and no refused one', async () => {
    const used: string[] = [];
    const cache = new ApiKeyCache(database(), { ttlMs: 10_000, maxEntries: 10, now, onUse: (k) => used.push(k) });
    await cache.findByApiKey(KEY, SECRET);
    await cache.findByApiKey(KEY, SECRET);
    cache.remembered(KEY, SECRET);
    await cache.findByApiKey(KEY, 'sk_live_wrong');
    expect(used).toEqual([KEY, KEY, KEY]);
  });
});
