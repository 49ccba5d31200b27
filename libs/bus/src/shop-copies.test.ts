import type { ShopsChangedMessage } from '@pl/contracts';
import { ShopCopies } from './shop-copies';

/** What the tests keep copies of: a shop's webhook target, say. */
interface Target {
  url: string;
  secret: string;
}

/** A source that counts look-ups and answers when the test says so. */
class ScriptedSource {
  calls = 0;
  private pending: { resolve: (t: Target) => void; reject: (e: Error) => void }[] = [];

  fetch = (): Promise<Target> => {
    this.calls += 1;
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  };

  answer(target: Target): void {
    for (const p of this.pending.splice(0)) p.resolve(target);
  }

  fail(): void {
    for (const p of this.pending.splice(0)) p.reject(new Error('shops service unavailable'));
  }
}

/** Stands in for the bus: the test plays the shops service's change notices and a reconnection. */
class FakeBus {
  onMessage: (m: ShopsChangedMessage) => void = () => undefined;
  onGap: () => void = () => undefined;

  subscribe(_contract: unknown, onMessage: (m: ShopsChangedMessage) => void, onGap: () => void): { unsubscribe: () => void } {
    this.onMessage = onMessage;
    this.onGap = onGap;
    return { unsubscribe: () => undefined };
  }
}

const A: Target = { url: 'https://a.example/hook', secret: 'secret-a' };
const B: Target = { url: 'https://b.example/hook', secret: 'secret-b' };

describe('shop copies', () => {
  let clock = 0;
  let source: ScriptedSource;
  let bus: FakeBus;
  let cache: ShopCopies<Target>;

  beforeEach(() => {
    clock = 1_000;
    source = new ScriptedSource();
    bus = new FakeBus();
    // The fake plays BusClient's subscribe for shops.changed only, which is all the copies use.
    cache = new ShopCopies(bus as never, source.fetch, { ttlMs: 5000, maxEntries: 2, now: () => clock });
  });

  const lookUp = async (shopId: number, answer?: Target): Promise<Target> => {
    const pending = cache.get(shopId);
    if (answer) source.answer(answer);
    return pending;
  };

  it('asks the shops service once for a shop and answers later attempts from the copy', async () => {
    await expect(lookUp(7, A)).resolves.toEqual(A);
    await expect(cache.get(7)).resolves.toEqual(A);
    expect(source.calls).toBe(1);
  });

  it('shares one look-up between attempts that ask for the same shop at once', async () => {
    const both = Promise.all([cache.get(7), cache.get(7)]);
    source.answer(A);
    await expect(both).resolves.toEqual([A, A]);
    expect(source.calls).toBe(1);
  });

  it('asks again once the copy is older than its TTL', async () => {
    await lookUp(7, A);
    clock += 5000;
    await expect(lookUp(7, B)).resolves.toEqual(B);
    expect(source.calls).toBe(2);
  });

  it('drops the copy of a shop the shops service announced as changed, and only that one', async () => {
    await lookUp(7, A);
    await lookUp(8, A);
    bus.onMessage({ shop_id: 7 });
    await expect(lookUp(7, B)).resolves.toEqual(B);
    await expect(cache.get(8)).resolves.toEqual(A);
    expect(source.calls).toBe(3);
  });

  it('drops every copy on a notice for any shop and after a NATS reconnection (notices may have been missed)', async () => {
    await lookUp(7, A);
    bus.onMessage({ shop_id: null });
    await expect(lookUp(7, B)).resolves.toEqual(B);
    bus.onGap();
    await expect(lookUp(7, A)).resolves.toEqual(A);
    expect(source.calls).toBe(3);
  });

  it('does not keep what a look-up read if a change notice came while it was on its way', async () => {
    const racing = cache.get(7);
    bus.onMessage({ shop_id: 7 });
    source.answer(A);
    await expect(racing).resolves.toEqual(A);
    await expect(lookUp(7, B)).resolves.toEqual(B);
  });

  it('keeps no failure: the next attempt asks again', async () => {
    const failing = cache.get(7);
    source.fail();
    await expect(failing).rejects.toThrow('shops service unavailable');
    await expect(lookUp(7, A)).resolves.toEqual(A);
    expect(source.calls).toBe(2);
  });

  it('keeps at most maxEntries copies, dropping the one used longest ago', async () => {
    await lookUp(1, A);
    await lookUp(2, A);
    await lookUp(3, A);
    expect(source.calls).toBe(3);
    await cache.get(3);
    await cache.get(2);
    expect(source.calls).toBe(3);
    await expect(lookUp(1, B)).resolves.toEqual(B);
    expect(source.calls).toBe(4);
    // 2 was used after 3, so 3 went for 1 and 2 is still here.
    await cache.get(2);
    expect(source.calls).toBe(4);
  });
});
