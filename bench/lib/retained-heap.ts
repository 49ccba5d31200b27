/**
 * The JS heap a Node service keeps, read from its own /metrics every `everyMs`: `nodejs_heap_retained_bytes`
 * (libs/telemetry), the heap in use just after the last full garbage collection.
 *
 * Why not RSS: RSS also counts memory the allocator and V8 keep after freeing it, and with garbage collection
 * it swings by tens of MiB (the heap in use by 60-230 MiB every few seconds in the notifier scenario), so a
 * slope or a floor over a few minutes says more about GC timing than about leaks: three flat runs measured
 * RSS slopes of −0.06, +0.87 and +4 MiB/min. What a leak grows is what survives a full collection.
 */
export class RetainedHeap {
  readonly samples: [seconds: number, mib: number][] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly started = Date.now();

  constructor(
    private readonly metricsUrl: string,
    everyMs = 2000,
  ) {
    this.timer = setInterval(() => void this.sample(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The median reading from `fromS` to `toS` seconds after the start; NaN when nothing was read. */
  medianMiB(fromS: number, toS: number): number {
    const inRange = this.samples
      .filter(([t]) => t >= fromS && t < toS)
      .map(([, v]) => v)
      .sort((a, b) => a - b);
    return inRange.length === 0 ? NaN : inRange[Math.floor(inRange.length / 2)]!;
  }

  private async sample(): Promise<void> {
    try {
      const text = await (await fetch(this.metricsUrl, { signal: AbortSignal.timeout(1000) })).text();
      const bytes = Number(/^nodejs_heap_retained_bytes(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1] ?? NaN);
      if (Number.isFinite(bytes)) this.samples.push([(Date.now() - this.started) / 1000, bytes / 2 ** 20]);
    } catch {
      // A scrape that fails or lags is a missing sample, not a finding.
    }
  }
}
