import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, INVALID_SPAN_CONTEXT, trace, type Attributes, type Context, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import type { Mode } from '@pl/contracts';
import { createMetricsRegistry, MODE_ATTRIBUTE } from '@pl/telemetry';
import { samples } from '../../test/metrics';
import { HttpWebhookSender } from './webhook-http.sender';

/** The spans started in this test file, with the attributes given at start or set later. */
const spans: { name: string; attributes: Attributes }[] = [];

/**
 * A tracer that only records names and attributes: the OpenTelemetry SDK is the services' runtime dependency
 * through @pl/telemetry, not one this package may import, and the span's attributes are all this test reads.
 */
const recordingTracer = {
  startSpan(name: string, options: SpanOptions = {}): Span {
    const attributes: Attributes = { ...options.attributes };
    spans.push({ name, attributes });
    const span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    span.setAttribute = (key, value) => {
      attributes[key] = value;
      return span;
    };
    return span;
  },
  startActiveSpan<T>(name: string, options: SpanOptions, parent: Context, work: (span: Span) => T): T {
    const span = recordingTracer.startSpan(name, options);
    return context.with(trace.setSpan(parent, span), work, undefined, span);
  },
};

describe('a webhook attempt’s mode', () => {
  let server: Server;
  let url: string;
  const metrics = createMetricsRegistry('notifier');
  const sender = new HttpWebhookSender({ timeoutMs: 2000, allowPrivateTargets: true, metrics });

  beforeAll(async () => {
    // startActiveSpan has overloads the recorder does not spell out; inSpan calls the four-argument one only.
    trace.setGlobalTracerProvider({ getTracer: () => recordingTracer as unknown as Tracer });
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(req.headers['x-answer'] === '500' ? 500 : 200).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    sender.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    trace.disable();
  });

  const send = (mode: Mode, answer = '200') =>
    sender.send(url, { 'content-type': 'application/json', 'x-answer': answer }, Buffer.from('{}'), { traceparent: null, mode });

  it('is on the attempt’s span', async () => {
    spans.length = 0;
    await send('test');
    await send('live');
    expect(spans.map((s) => [s.name, s.attributes[MODE_ATTRIBUTE], s.attributes['webhook.outcome']])).toEqual([
      ['webhook send', 'test', 'succeeded'],
      ['webhook send', 'live', 'succeeded'],
    ]);
  });

  it('labels the attempt counter and the duration histogram', async () => {
    // With the two attempts above, one of each mode.
    await send('test', '500');
    const text = await metrics.metrics();
    expect(samples(text, 'webhook_attempts_total', { mode: 'test', outcome: 'http_5xx' })).toEqual([1]);
    expect(samples(text, 'webhook_attempts_total', { mode: 'live', outcome: 'http_5xx' })).toEqual([]);
    expect(samples(text, 'webhook_attempt_duration_seconds_count', { mode: 'test', outcome: 'succeeded' })).toEqual([1]);
    expect(samples(text, 'webhook_attempt_duration_seconds_count', { mode: 'live', outcome: 'succeeded' })).toEqual([1]);
  });
});
