/**
 * Writes items in batches without holding any back: what is added in one turn of the event loop goes out
 * together at its end (callers started by one event, e.g. the partitions of one Kafka fetch, share a
 * write), and whatever arrives while a write is in flight goes out together in the next one (up to
 * `maxBatch`). Under load, many items share one statement (one round trip, one commit); idle, an item
 * costs what it did alone.
 */
export class WriteBatcher<T, R> {
  private queue: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private writing = false;
  private idle: (() => void)[] = [];

  constructor(
    /** Writes a batch; returns one result per item, in order. A throw fails every item of the batch. */
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly maxBatch: number,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.writing) return;
      this.writing = true;
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.write(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(results[i] as R));
        } catch (e) {
          for (const b of batch) b.reject(e);
        }
      }
    } finally {
      this.writing = false;
      for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /** Resolves once everything added so far has been written (or has failed): for a caller about to stop. */
  settled(): Promise<void> {
    return this.writing ? new Promise((resolve) => this.idle.push(resolve)) : Promise.resolve();
  }
}
