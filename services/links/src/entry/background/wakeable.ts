/**
 * A sleep that a background loop can cut short: `wake()` ends the current (or the next) wait at once,
 * `stop()` ends every wait from now on. A wake that arrives while the loop is busy is remembered, so
 * work signalled mid-batch is never left for the next timer tick.
 */
export class Wakeable {
  private woken = false;
  private stopped = false;
  private release: (() => void) | null = null;

  wake(): void {
    this.woken = true;
    this.release?.();
  }

  stop(): void {
    this.stopped = true;
    this.release?.();
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Waits `ms`, or less when woken (only if `wakeable`) or stopped. */
  sleep(ms: number, wakeable = true): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (wakeable && this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.release = null;
        if (wakeable) this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.release = () => {
        if (wakeable || this.stopped) done();
      };
    });
  }
}

/** Exponential backoff from `baseMs`, doubling per failure up to `maxMs`. */
export const backoffMs = (failures: number, baseMs: number, maxMs: number): number => Math.min(maxMs, baseMs * 2 ** Math.min(failures - 1, 20));
