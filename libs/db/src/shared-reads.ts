import { AsyncResource } from 'node:async_hooks';

interface Queued<R> {
  /** The read as its first caller asked for it, bound to that caller's async context (its trace). */
  run: () => Promise<R>;
  promise: Promise<R>;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
  /** Callers sharing it, its first included. */
  callers: number;
}

interface KeyState<R> {
  /** The read that starts when the one in flight ends; every caller of the key that arrives meanwhile joins it. */
  next: Queued<R> | null;
}

/** What a caller of {@link SharedReads.read} gets: the result and how many callers the read served. */
export interface SharedResult<R> {
  value: R;
  sharedBy: number;
}

/**
 * Identical reads share one trip to the database, without ever being older than their request. A read of a key
 * that has none in flight starts at once; one that arrives while a read of its key is in flight does not take that
 * read's result (it may have started before the caller's request, and miss a write the caller has seen committed)
 * but waits for the next one, which starts when the one in flight ends and serves every caller that arrived
 * meanwhile. So a burst of N identical reads costs two statements, not N, and a lone read costs what it did alone.
 *
 * The key must name everything the read depends on: two reads of one key must be interchangeable. A failure is
 * every sharing caller's failure, as the statement was theirs.
 */
export class SharedReads<R> {
  private readonly keys = new Map<string, KeyState<R>>();

  async read(key: string, read: () => Promise<R>): Promise<SharedResult<R>> {
    const state = this.keys.get(key);
    if (state === undefined) {
      const fresh: KeyState<R> = { next: null };
      this.keys.set(key, fresh);
      try {
        return { value: await read(), sharedBy: 1 };
      } finally {
        this.startNext(key, fresh);
      }
    }
    const queued = state.next ?? (state.next = this.queue(read));
    queued.callers += 1;
    const value = await queued.promise;
    return { value, sharedBy: queued.callers };
  }

  /** Keys with a read in flight: none once every read has ended (nothing is held on to). */
  get inFlight(): number {
    return this.keys.size;
  }

  private queue(read: () => Promise<R>): Queued<R> {
    let resolve!: (r: R) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<R>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Run later on behalf of the caller that queued it: its spans belong in that caller's trace, not the ender's.
    return { run: AsyncResource.bind(read), promise, resolve, reject, callers: 0 };
  }

  private startNext(key: string, state: KeyState<R>): void {
    const queued = state.next;
    if (queued === null) {
      this.keys.delete(key);
      return;
    }
    state.next = null;
    // Through a promise's executor, so a read that throws before returning its promise fails its callers too.
    new Promise<R>((resolve) => resolve(queued.run())).then(queued.resolve, queued.reject).finally(() => this.startNext(key, state));
  }
}
