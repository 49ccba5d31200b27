import { broadcasts } from '@pl/contracts';
import { CredentialChanges } from './credential-changes';

/** A bus that hands the test the subscriber's callbacks, and a cache that records what it was told. */
function fakes() {
  const told: string[] = [];
  const published: unknown[] = [];
  let deliver: (m: { public_key: string | null; expires_at: string | null }) => void = () => undefined;
  let gap: () => void = () => undefined;
  const bus = {
    publish: (contract: { name: string }, message: unknown) => void published.push([contract.name, message]),
    subscribe: (_c: unknown, onMessage: typeof deliver, onGap: () => void) => {
      deliver = onMessage;
      gap = onGap;
      return { unsubscribe: () => undefined };
    },
  };
  const cache = {
    evict: (k: string) => void told.push(`evict ${k}`),
    clear: () => void told.push('clear'),
    setLive: (live: boolean) => void told.push(`live ${live}`),
  };
  return { bus, cache, told, published, deliver: (m: Parameters<typeof deliver>[0]) => deliver(m), gap: () => gap() };
}

/** Connection statuses the test pushes one at a time. */
function statuses() {
  const queue: { type: string }[] = [];
  let wake: (() => void) | undefined;
  return {
    push(type: string) {
      queue.push({ type });
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length > 0) yield queue.shift() as { type: string };
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

describe('CredentialChanges', () => {
  it('evicts locally and broadcasts a change', () => {
    const f = fakes();
    new CredentialChanges(f.bus as never, f.cache).changed('pk_live_a', new Date('2026-11-24T10:00:00Z'));
    expect(f.told).toEqual(['evict pk_live_a']);
    expect(f.published).toEqual([[broadcasts.credentialsChanged.name, { public_key: 'pk_live_a', expires_at: '2026-11-24T10:00:00.000Z' }]]);
  });

  it("evicts another replica's key on receipt, everything on a null key or a gap", () => {
    const f = fakes();
    new CredentialChanges(f.bus as never, f.cache).listen(statuses());
    f.deliver({ public_key: 'pk_live_b', expires_at: null });
    f.deliver({ public_key: null, expires_at: null });
    f.gap();
    expect(f.told).toEqual(['evict pk_live_b', 'clear', 'clear']);
  });

  it('keeps nothing while disconnected and starts from empty on reconnect', async () => {
    const f = fakes();
    const s = statuses();
    const stop = new CredentialChanges(f.bus as never, f.cache).listen(s);
    s.push('disconnect');
    s.push('pingTimer');
    s.push('reconnect');
    await new Promise(setImmediate);
    expect(f.told).toEqual(['live false', 'live true']);
    stop();
  });
});
