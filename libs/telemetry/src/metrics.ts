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
  // The scrape job adds the pod and namespace; the service name keeps series apart in a shared dashboard.
  registry.setDefaultLabels({ service });
  return registry;
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
  read: () => Promise<Array<{ labels?: Partial<Record<L, string | number>>; value: number }>>;
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
