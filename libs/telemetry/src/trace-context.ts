import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

export { SpanKind, SpanStatusCode, type Span };

/** The header (NATS, Kafka) and column (outbox, deliveries) W3C trace context travels in. */
export const TRACEPARENT = 'traceparent';

/** Our tracer; a no-op until startTracing registered the SDK, so libraries may call it unconditionally. */
export const tracer = () => trace.getTracer('payment-links');

/** Writes the active trace context (`traceparent`, `tracestate`) into a carrier through `set`. */
export function injectTraceContext(set: (key: string, value: string) => void, ctx: Context = context.active()): void {
  propagation.inject(ctx, {}, { set: (_carrier, key, value) => set(key, value) });
}

/** The active context as a `traceparent` value to store with a row, or null when nothing is being traced. */
export function currentTraceparent(): string | null {
  let value: string | null = null;
  injectTraceContext((key, v) => {
    if (key === TRACEPARENT) value = v;
  });
  return value;
}

/** The context a stored or received trace context describes; an empty one when there is none. */
export function contextFrom(get: (key: string) => string | undefined | null): Context {
  return propagation.extract(
    ROOT_CONTEXT,
    {},
    {
      get: (_carrier, key) => get(key) ?? undefined,
      keys: () => [TRACEPARENT, 'tracestate'],
    },
  );
}

/** The context of a stored `traceparent`. */
export const contextFromTraceparent = (traceparent: string | null | undefined): Context =>
  contextFrom((key) => (key === TRACEPARENT ? traceparent : undefined));

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; the active context when absent. */
  parent?: Context;
}

/**
 * Runs `work` inside a new active span that ends when it settles; a throw marks the span as an error and
 * is rethrown.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} }, parent, async (span) => {
    try {
      return await work(span);
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : 'error' });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** A context whose active span is `span`: to inject it, or to run work under it. */
export const contextOf = (span: Span): Context => trace.setSpan(context.active(), span);

/** The span active now (an HTTP server span in a gateway middleware, say), or undefined when nothing is traced. */
export const activeSpan = (): Span | undefined => trace.getActiveSpan();

/** The attribute a span carries the mode it acted in by (`live` or `test`; the gateway's `none` before authentication). */
export const MODE_ATTRIBUTE = 'pl.mode';
