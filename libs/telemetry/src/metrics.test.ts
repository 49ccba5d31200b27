import { constants, PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createMetricsRegistry } from './metrics';

/**
 * Runs V8's full collector (reachable without starting node with --expose-gc) and resolves once the gc
 * entry has been handed to observers: the registry's observer, made earlier, has seen it by then.
 */
function fullGc(): Promise<void> {
  const seen = new Promise<void>((resolve) => {
    const observer = new PerformanceObserver((list) => {
      const major = list
        .getEntries()
        .some((e) => (e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
      if (!major) return;
      observer.disconnect();
      resolve();
    });
    observer.observe({ entryTypes: ['gc'] });
  });
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return seen;
}

const sample = (text: string, name: string): number | undefined => {
  const m = new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

describe('metrics registry', () => {
  it('reports the heap retained after the last full collection, beside the default process metrics', async () => {
    const registry = createMetricsRegistry('metrics-test');
    // Kept alive across the collection: the retained heap must count it.
    const kept = Array.from({ length: 200_000 }, (_, i) => ({ i, text: `item-${i}` }));
    await fullGc();
    const text = await registry.metrics();
    const retained = sample(text, 'nodejs_heap_retained_bytes');
    expect(retained).toBeGreaterThan(kept.length * 16);
    expect(retained).toBeLessThanOrEqual(sample(text, 'nodejs_heap_size_total_bytes') ?? 0);
    expect(text).toContain('process_resident_memory_bytes{app="metrics-test"}');
    expect(kept).toHaveLength(200_000);
  });
});
