import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, type Registry } from 'prom-client';
import { registeredMetric } from './metrics';

export interface OpsServerOptions {
  port: number;
  host?: string;
  /** Resolves true when the service can serve its core work (the dependencies that work needs answer). */
  ready: () => Promise<boolean>;
  /** A readiness check still unanswered after this long is a 503 (a hung dependency is not ready); default 2000. */
  readyTimeoutMs?: number;
  /** Served as Prometheus text on `/metrics` (createMetricsRegistry). */
  metrics?: Registry;
}

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `/healthz` (the process is alive), `/readyz` (its dependencies answer) and `/metrics` (Prometheus) on
 * a port of its own, so probes and scrapes never queue behind business traffic.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const readiness = options.metrics ? readinessMetrics(options.metrics) : undefined;
  let lastReady: boolean | undefined;
  const answerReady = (ok: boolean): void => {
    readiness?.ready.set(ok ? 1 : 0);
    if (lastReady !== undefined && lastReady !== ok) readiness?.changes.inc();
    lastReady = ok;
  };
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: object): void => {
      if (res.headersSent) return; // a late readiness answer after its time-out
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const path = (req.url ?? '').split('?')[0];
    if (path === '/healthz') {
      send(200, { status: 'ok' });
      return;
    }
    if (path === '/readyz') {
      // Under the orchestrator's probe time-out (k8s: 3 s), so the answer is ours, not a dropped probe.
      let answered = false;
      const answer = (ok: boolean): void => {
        if (answered) return;
        answered = true;
        answerReady(ok);
        send(ok ? 200 : 503, { status: ok ? 'ready' : 'not_ready' });
      };
      const timer = setTimeout(() => answer(false), options.readyTimeoutMs ?? 2000);
      options
        .ready()
        .then(answer, () => answer(false))
        .finally(() => clearTimeout(timer));
      return;
    }
    const registry = options.metrics;
    if (path === '/metrics' && registry) {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => send(500, { error: { code: 'common.err.internal', message: 'Metrics could not be collected' } }),
      );
      return;
    }
    send(404, { error: { code: 'common.err.not_found', message: 'Not found' } });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * `readiness_ready` (the last `/readyz` answer: 1 ready, 0 not) and `readiness_changes_total` (how often that
 * answer flipped): the probes call `/readyz` every few seconds, so a process that keeps dropping out of its
 * Service and coming back shows as a rising count, whatever the scrape interval misses in between.
 */
function readinessMetrics(registry: Registry): { ready: Gauge; changes: Counter } {
  const registers = [registry];
  return {
    ready: registeredMetric(
      registry,
      'readiness_ready',
      () => new Gauge({ name: 'readiness_ready', help: 'The last /readyz answer of this process: 1 ready, 0 not ready', registers }),
    ),
    changes: registeredMetric(
      registry,
      'readiness_changes_total',
      () =>
        new Counter({
          name: 'readiness_changes_total',
          help: 'How often the /readyz answer of this process flipped between ready and not ready',
          registers,
        }),
    ),
  };
}
