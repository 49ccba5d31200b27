import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { RedisInstrumentation } from '@opentelemetry/instrumentation-redis';
import { setTracingShutdown, shutdownTracing } from './tracing-state';

/** Probe and scrape paths of the ops servers: traced, they would bury the traces that matter. */
const OPS_PATHS = /^\/(healthz|readyz|metrics)(\?|$)/;

/** The attribute SREs search by in Jaeger to go from a response's `X-Request-Id` to its trace. */
export const REQUEST_ID_ATTRIBUTE = 'http.request_id';

export interface Tracing {
  /** Flushes buffered spans and stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry Node SDK for a service: `service.name`, spans exported over OTLP/HTTP (JSON) to
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, W3C trace context, and the pg, http, express, redis (node-redis 4/5) and
 * pino (`trace_id`/`span_id` on every log line) instrumentations.
 *
 * Must run before pg, express, redis and pino are first required: the instrumentations patch modules as
 * they load. Each main.ts therefore imports only this module (`@pl/telemetry/tracing`, which loads none of
 * them), calls it, and requires the rest of the service afterwards.
 *
 * Returns undefined, and installs nothing, when OTEL_EXPORTER_OTLP_ENDPOINT is unset or
 * OTEL_SDK_DISABLED=true: tracing off, no exporter retrying against a collector that is not there.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (!endpoint || env.OTEL_SDK_DISABLED === 'true') return undefined;
  const sdk = new NodeSDK({
    serviceName,
    // The exporter reads the endpoint from the environment and appends /v1/traces to it.
    traceExporter: new OTLPTraceExporter(),
    // Traces only: metrics are prom-client's on /metrics and logs go to stdout, so neither is pushed over OTLP
    // (left unset, the SDK would start OTLP metric and log exporters against a Jaeger that refuses them).
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => OPS_PATHS.test(req.url ?? ''),
        applyCustomAttributesOnSpan: (span, _request, response) => {
          // Server spans only: the gateway's X-Request-Id (chosen or accepted) becomes searchable.
          if (!('getHeader' in response)) return;
          const id = response.getHeader('x-request-id');
          if (typeof id === 'string') span.setAttribute(REQUEST_ID_ATTRIBUTE, id);
        },
      }),
      // Only for the route: it names the HTTP server span (`GET /merchant/v1/payment-links/:id`). Layer spans would
      // add one to three per request whose timings the HTTP span's already give (a handler's span covered the same
      // work, ending as the response did), each paid for on every request; an unexpected error is recorded on the
      // HTTP span by the service's error handler instead.
      new ExpressInstrumentation({
        ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER, ExpressLayerType.REQUEST_HANDLER],
      }),
      // Queries, not pool check-outs: a connect span per query doubled the links service's spans.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new RedisInstrumentation({ requireParentSpan: true }),
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });
  sdk.start();
  const shutdown = (): Promise<void> => sdk.shutdown();
  setTracingShutdown(shutdown);
  return { shutdown };
}

export { shutdownTracing };
