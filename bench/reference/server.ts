/**
 * The benchmark's reference: what routes 1, 4, 6 and 7 cost when an express + pg monolith does them
 * alone (one process, or one per core: REF_WORKERS below), with no gateway, NATS hop, rate limiter or
 * separate shops/links services. Each process does the same database work the platform does for one
 * request, statement for statement (as of the services' code when this was written; docs/benchmarks.md
 * lists them):
 *
 * - authentication: the gateway's API-key look-up (api_keys ⋈ merchants by public key) and the
 *   constant-time compare of the secret's SHA-256;
 * - create: the same body parser and zod contract, the shop row from shops.shops, the same amounts
 *   (@pl/money) and the same `INSERT … RETURNING` into links.payment_links;
 * - get: the row by id, expired on read when due; list: the same keyset query (limit + 1, cursor of the
 *   links service), a due pending link shown as expired; cancel: the same conditional UPDATE.
 *
 * It caches nothing (no API keys, no shops): it is the plain monolith's way to serve these routes.
 *
 * It writes one access log line per request and starts the same OpenTelemetry setup first, so tracing
 * and logging cost here what they cost in the gateway.
 *
 * REF_WORKERS=N (N > 1) runs it as a monolith would run on every core: a node:cluster primary forks N
 * workers, each running exactly the code above on the shared REF_PORT. The primary runs no route (with
 * node's default round-robin it accepts connections and hands them to the workers) and restarts nothing:
 * it passes SIGTERM and SIGINT to the workers and exits once they all have; a worker that exits unasked
 * stops the others, so the run fails rather than measuring fewer workers. Unset or 1: one process.
 *
 * Environment: REF_PORT, REF_WORKERS, DATABASE_URL, PUBLIC_BASE_URL, OTEL_EXPORTER_OTLP_ENDPOINT, LOG_LEVEL.
 */
import cluster from 'node:cluster';
// Tracing patches express, pg and pino as they load, so it starts before any of them is required.
import { startTracing } from '@pl/telemetry/tracing';

const workers = Number(process.env.REF_WORKERS ?? '1');

/**
 * Forks the workers (they inherit --import tsx and this script) and lives until every one has exited. A worker
 * that exits unasked stops the rest: a cluster short of a worker would be measured as if it were whole.
 */
function runPrimary(count: number): void {
  let live = 0;
  let failed = false;
  const stopAll = (signal: NodeJS.Signals): void => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    stopping = true;
    stopAll(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // Node passes null for whichever of code and signal did not end the worker (its typings say otherwise).
  cluster.on('exit', (worker, code: number | null, signal: string | null) => {
    live--;
    if (code !== 0) {
      failed = true;
      process.stderr.write(`reference worker ${String(worker.process.pid)} exited (${signal ?? `code ${String(code)}`})\n`);
    }
    if (!stopping) {
      stopping = true;
      failed = true;
      stopAll('SIGTERM');
    }
    if (live === 0) process.exit(failed ? 1 : 0);
  });
  for (let i = 0; i < count; i++) {
    cluster.fork();
    live++;
  }
}

function runServer(): void {
  startTracing('bench-reference');
  void (async () => {
    const { startReference } = await import('./app');
    const port = Number(process.env.REF_PORT ?? '0');
    const running = await startReference({
      port,
      databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/payment_links',
      publicBaseUrl: (process.env.PUBLIC_BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, ''),
    });
    const stop = (): void => {
      running.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  })().catch((err: unknown) => {
    process.stderr.write(`reference failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}

if (cluster.isPrimary && workers > 1) runPrimary(workers);
else runServer();
