import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

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
      const timer = setTimeout(() => send(503, { status: 'not_ready' }), options.readyTimeoutMs ?? 2000);
      options
        .ready()
        .then(
          (ok) => send(ok ? 200 : 503, { status: ok ? 'ready' : 'not_ready' }),
          () => send(503, { status: 'not_ready' }),
        )
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
