/** Milliseconds since the load began (negative during the set-up), the one time axis of every figure. */
export class Clock {
  private origin = performance.now();

  /** Moves the origin to now (the load starts); returns by how much, so times taken before can be moved too. */
  reset(): number {
    const delta = performance.now() - this.origin;
    this.origin += delta;
    return delta;
  }

  now(): number {
    return performance.now() - this.origin;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
