/**
 * The benchmark's reference: what routes 1, 4, 6 and 7 cost when one express + pg process does them
 * alone, with no gateway, NATS hop, rate limiter or separate shops/links services. It does the same
 * database work the platform does for one request, statement for statement (as of the services'
 * code when this was written; docs/benchmarks.md lists them):
 *
 * - authentication: the gateway's API-key look-up (api_keys ⋈ merchants by public key) and the
 *   constant-time compare of the secret's SHA-256;
 * - create: the same body parser and zod contract, the shop row from shops.shops, the same amounts
 *   (@pl/money) and the same `INSERT … RETURNING` into links.payment_links;
 * - get: the row by id, expired on read when due; list: the same keyset query (limit + 1, cursor of the
 *   links service), a due pending link shown as expired; cancel: the same conditional UPDATE.
 *
 * It caches nothing (no API keys, no shops): it is the plain single-process way to serve these routes.
 *
 * It writes one access log line per request and starts the same OpenTelemetry setup first, so tracing
 * and logging cost here what they cost in the gateway.
 *
 * Environment: REF_PORT, DATABASE_URL, PUBLIC_BASE_URL, OTEL_EXPORTER_OTLP_ENDPOINT, LOG_LEVEL.
 */
// Tracing patches express, pg and pino as they load, so it starts before any of them is required.
import { startTracing } from '@pl/telemetry/tracing';

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
