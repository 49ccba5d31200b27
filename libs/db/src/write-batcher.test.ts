import { WriteBatcher } from './write-batcher';

/** A write the test finishes by hand, recording the batches it was given. */
function scriptedWrite(): { batches: number[][]; finish: (fail?: Error) => void; write: (items: number[]) => Promise<number[]> } {
  const batches: number[][] = [];
  let pending: { items: number[]; resolve: (r: number[]) => void; reject: (e: Error) => void }[] = [];
  return {
    batches,
    finish: (fail) => {
      const [next, ...rest] = pending;
      pending = rest;
      if (fail) next?.reject(fail);
      else next?.resolve(next.items.map((i) => i * 10));
    },
    write: (items) =>
      new Promise((resolve, reject) => {
        batches.push(items);
        pending.push({ items, resolve, reject });
      }),
  };
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('write batcher', () => {
  it('writes what was added in one turn together, then everything that came meanwhile in one write, each getting its own result', async () => {
    const w = scriptedWrite();
    const batcher = new WriteBatcher(w.write, 10);
    const first = [batcher.add(1), batcher.add(2)];
    expect(w.batches).toEqual([]);
    await settle();
    expect(w.batches).toEqual([[1, 2]]);
    const rest = [batcher.add(3), batcher.add(4), batcher.add(5)];
    w.finish();
    await expect(Promise.all(first)).resolves.toEqual([10, 20]);
    await settle();
    expect(w.batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    w.finish();
    await expect(Promise.all(rest)).resolves.toEqual([30, 40, 50]);
  });

  it('splits what waits into writes of at most maxBatch items', async () => {
    const w = scriptedWrite();
    const batcher = new WriteBatcher(w.write, 2);
    const all = [1, 2, 3, 4, 5].map((i) => batcher.add(i));
    for (let i = 0; i < 3; i += 1) {
      await settle();
      w.finish();
    }
    await expect(Promise.all(all)).resolves.toEqual([10, 20, 30, 40, 50]);
    expect(w.batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('fails every item of a failed write, and writes the next ones again', async () => {
    const w = scriptedWrite();
    const batcher = new WriteBatcher(w.write, 10);
    const lost = batcher.add(1);
    await settle();
    w.finish(new Error('database unavailable'));
    await expect(lost).rejects.toThrow('database unavailable');
    const next = batcher.add(2);
    await settle();
    w.finish();
    await expect(next).resolves.toBe(20);
  });

  it('tells a caller about to stop when everything added so far has been written', async () => {
    const w = scriptedWrite();
    const batcher = new WriteBatcher(w.write, 10);
    await expect(batcher.settled()).resolves.toBeUndefined();
    void batcher.add(1);
    let settled = false;
    const done = batcher.settled().then(() => (settled = true));
    await settle();
    void batcher.add(2);
    w.finish();
    await settle();
    expect(settled).toBe(false);
    w.finish();
    await done;
    expect(w.batches).toEqual([[1], [2]]);
  });
});
