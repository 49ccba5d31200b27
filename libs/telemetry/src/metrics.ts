import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export { Counter, Gauge, Histogram, Registry };

/** Buckets (seconds) for request-like durations: 5 ms .. 10 s. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * A Prometheus registry of a service's own, with the default process metrics (CPU, memory, event-loop lag,
 * GC, handles). One per service rather than prom-client's global one, so several services started in one
 * process (the tests do) never collide on a metric name.
 */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  observeFullCollections();
  new Gauge({
    name: 'nodejs_heap_retained_bytes',
    help: 'JS heap in use just after the last full garbage collection: what the process keeps (a leak makes it climb; heap_size_used swings with every collection)',
    registers: [registry],
    collect() {
      if (heapAfterFullGc !== null) this.set(heapAfterFullGc);
    },
  });
  // The scrape job adds the pod and namespace; `app` keeps the services' series apart in a shared dashboard.
  // Not `service`: a ServiceMonitor's scrape sets that label to the Kubernetes Service's name, and Prometheus
  // would rename ours to `exported_service`.
  registry.setDefaultLabels({ app: service });
  return registry;
}

let heapAfterFullGc: number | null = null;
let observingGc = false;

/** One observer per process, however many registries: each full (mark-compact) collection records the heap left. */
function observeFullCollections(): void {
  if (observingGc) return;
  observingGc = true;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // @types/node 20 types a gc entry's `detail` only on the subclass it does not export.
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) heapAfterFullGc = getHeapStatistics().used_heap_size;
    }
  }).observe({ entryTypes: ['gc'] });
}

/** The metric already registered under `name`, or a new one made by `create` (libraries share a registry). */
export function registeredMetric<M>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}

export interface ScrapedGaugeOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** Values at scrape time (a cheap query); a failure leaves the series out of that scrape. */
  read: () => Promise<{ labels?: Partial<Record<L, string | number>>; value: number }[]>;
}

/** A gauge whose values are read when Prometheus scrapes, so nothing polls between scrapes. */
export function scrapedGauge<L extends string>(registry: Registry, options: ScrapedGaugeOptions<L>): Gauge<L> {
  return new Gauge<L>({
    name: options.name,
    help: options.help,
    labelNames: options.labelNames ?? [],
    registers: [registry],
    async collect() {
      this.reset();
      let values: Awaited<ReturnType<typeof options.read>>;
      try {
        values = await options.read();
      } catch {
        return;
      }
      for (const v of values) {
        if (v.labels) this.set(v.labels, v.value);
        else this.set(v.value);
      }
    },
  });
}
