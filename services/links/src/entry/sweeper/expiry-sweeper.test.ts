import pino from 'pino';
import { ExpirySweeper, type DueLinkExpirer } from './expiry-sweeper';

/** `due` links, expired `limit` at a time, with the moment of every batch. */
class FakeLinks implements DueLinkExpirer {
  readonly batchesAt: number[] = [];
  private onBatch: (() => void) | undefined;

  constructor(public due: number) {}

  async expireDueBatch(limit: number): Promise<string[]> {
    this.batchesAt.push(Date.now());
    const n = Math.min(limit, this.due);
    this.due -= n;
    this.onBatch?.();
    return Array.from({ length: n }, (_, i) => `link-${i}`);
  }

  async countDue(): Promise<number> {
    return this.due;
  }

  /** Resolves after the next batch. */
  nextBatch(): Promise<void> {
    return new Promise((resolve) => (this.onBatch = resolve));
  }
}

const log = pino({ level: 'silent' });

describe('expiry sweeper pace', () => {
  describe('on a fake clock', () => {
    // The pace is a matter of the clock alone: on Jest's fake timers every batch lands at an exact instant,
    // where a real clock would make the test slow and its bounds loose.
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('spreads a backlog of many batches over spreadMs, pausing only when ahead, and expires all of it', async () => {
      const links = new FakeLinks(100);
      const sweeper = new ExpirySweeper({ links, intervalMs: 60_000, batchSize: 5, spreadMs: 400, log });
      const started = Date.now();
      const swept = sweeper.sweep();
      await jest.runAllTimersAsync();
      await expect(swept).resolves.toBe(100);
      expect(links.due).toBe(0);
      // 20 batches of 5 over 400 ms: each batch waits for its pace (20 ms apart), the empty 21st ends the sweep on time.
      expect(links.batchesAt.map((at) => at - started)).toEqual(Array.from({ length: 21 }, (_, i) => i * 20));
    });
  });

  // A spread of an hour: any pause would outlast the test's own 5 s time-out and fail it.
  const HOUR = 3_600_000;

  it('sweeps a backlog of a few batches at full speed', async () => {
    const links = new FakeLinks(20);
    const sweeper = new ExpirySweeper({ links, intervalMs: 60_000, batchSize: 5, spreadMs: HOUR, log });
    await expect(sweeper.sweep()).resolves.toBe(20);
    expect(links.batchesAt).toHaveLength(5);
  }, 5_000);

  it('ends a pause at once when stopped, and sweeps no further', async () => {
    const links = new FakeLinks(1000);
    const sweeper = new ExpirySweeper({ links, intervalMs: 60_000, batchSize: 10, spreadMs: HOUR, log });
    const first = links.nextBatch();
    sweeper.start();
    await first;
    await sweeper.stop();
    expect(links.batchesAt).toHaveLength(1);
    expect(links.due).toBe(990);
  }, 5_000);
});
