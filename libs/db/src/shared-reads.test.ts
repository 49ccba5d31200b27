import { AsyncLocalStorage } from 'node:async_hooks';
import { SharedReads } from './shared-reads';

/** A read the test ends by hand, counting how often it was started. */
class Gate<R> {
  started = 0;
  private ends: { resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];

  readonly read = (): Promise<R> => {
    this.started += 1;
    return new Promise<R>((resolve, reject) => this.ends.push({ resolve, reject }));
  };

  /** Ends the oldest read still running. */
  end(result: R): void {
    this.next().resolve(result);
  }

  fail(error: Error): void {
    this.next().reject(error);
  }

  private next(): { resolve: (r: R) => void; reject: (e: unknown) => void } {
    const first = this.ends.shift();
    if (!first) throw new Error('no read is running');
    return first;
  }
}

/** Lets the promise callbacks that are due run (a started read's `finally`, the next read's start). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SharedReads', () => {
  it('runs a lone read at once and keeps nothing once it ends', async () => {
    const reads = new SharedReads<string>();
    const gate = new Gate<string>();
    const result = reads.read('k', gate.read);
    expect(gate.started).toBe(1);
    gate.end('a');
    expect(await result).toEqual({ value: 'a', sharedBy: 1 });
    expect(reads.inFlight).toBe(0);
  });

  it('has the reads that arrive while one is in flight wait for the next, which serves them all with one read', async () => {
    const reads = new SharedReads<string>();
    const gate = new Gate<string>();
    const first = reads.read('k', gate.read);
    const later = [reads.read('k', gate.read), reads.read('k', gate.read), reads.read('k', gate.read)];
    expect(gate.started).toBe(1);

    // The read in flight may predate the later callers' requests: its result is the first caller's alone.
    gate.end('old');
    expect(await first).toEqual({ value: 'old', sharedBy: 1 });
    await settle();
    expect(gate.started).toBe(2);
    gate.end('new');
    expect(await Promise.all(later)).toEqual([
      { value: 'new', sharedBy: 3 },
      { value: 'new', sharedBy: 3 },
      { value: 'new', sharedBy: 3 },
    ]);
    await settle();
    expect(reads.inFlight).toBe(0);
  });

  it('does not give a caller that arrives while the shared read runs that read either', async () => {
    const reads = new SharedReads<string>();
    const gate = new Gate<string>();
    const first = reads.read('k', gate.read);
    const second = reads.read('k', gate.read);
    gate.end('one');
    await first;
    await settle();
    const third = reads.read('k', gate.read);
    gate.end('two');
    expect(await second).toEqual({ value: 'two', sharedBy: 1 });
    await settle();
    expect(gate.started).toBe(3);
    gate.end('three');
    expect(await third).toEqual({ value: 'three', sharedBy: 1 });
  });

  it('never shares between keys', async () => {
    const reads = new SharedReads<string>();
    const a = new Gate<string>();
    const b = new Gate<string>();
    const ra = reads.read('a', a.read);
    const rb = reads.read('b', b.read);
    expect([a.started, b.started]).toEqual([1, 1]);
    b.end('b');
    a.end('a');
    expect([await ra, await rb]).toEqual([
      { value: 'a', sharedBy: 1 },
      { value: 'b', sharedBy: 1 },
    ]);
  });

  it("gives a failed read's error to every caller sharing it, and the key reads afresh afterwards", async () => {
    const reads = new SharedReads<string>();
    const gate = new Gate<string>();
    const first = reads.read('k', gate.read);
    const shared = [reads.read('k', gate.read), reads.read('k', gate.read)];
    gate.end('ok');
    await first;
    await settle();
    gate.fail(new Error('connection lost'));
    for (const r of shared) await expect(r).rejects.toThrow('connection lost');
    await settle();
    expect(reads.inFlight).toBe(0);

    const again = reads.read('k', gate.read);
    gate.end('back');
    expect(await again).toEqual({ value: 'back', sharedBy: 1 });
  });

  it('fails the callers of a read that throws before it returns a promise', async () => {
    const reads = new SharedReads<string>();
    const gate = new Gate<string>();
    const first = reads.read('k', gate.read);
    const throwing = reads.read('k', () => {
      throw new RangeError('bad limit');
    });
    gate.end('ok');
    await first;
    await expect(throwing).rejects.toThrow('bad limit');
    await settle();
    expect(reads.inFlight).toBe(0);
  });

  it("runs a queued read in the async context of the caller that queued it (its spans land in that caller's trace)", async () => {
    const reads = new SharedReads<string>();
    const gate = new Gate<string>();
    const store = new AsyncLocalStorage<string>();
    const first = store.run('first caller', () => reads.read('k', gate.read));
    const second = store.run('second caller', () => reads.read('k', async () => `read by ${store.getStore()}`));
    gate.end('first');
    await first;
    expect(await second).toEqual({ value: 'read by second caller', sharedBy: 1 });
  });
});
