import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { raiffeisenSbpProvider } from '@pl/providers';
import { currentTraceparent, inSpan } from '@pl/telemetry';
import { startTracing, type Tracing } from '@pl/telemetry/tracing';
import { RaiffeisenSbpFake } from '../src';

/**
 * The services run the OpenTelemetry SDK with its HTTP instrumentation, which writes `traceparent` into every
 * request made with node:http. Provider calls go through fetch (undici), which that SDK leaves alone; this test
 * starts the SDK as a service does and checks, from inside an active span, that the bank receives no trace context.
 * It fails if an undici/fetch instrumentation is ever added without keeping provider calls out of it.
 */

const SECRET = 'raif-trace-secret';
let collector: Server;
let fake: RaiffeisenSbpFake;
let tracing: Tracing | undefined;

beforeAll(async () => {
  // Where the SDK exports its spans; it only has to answer.
  collector = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('{}')));
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  // Spans are not sampled, so none is exported (the OTLP exporter cannot load inside Jest); the context still
  // carries a trace id that an instrumentation would write into the request.
  process.env.OTEL_TRACES_SAMPLER = 'always_off';
  tracing = startTracing('provider-fakes-test', { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}` });
  fake = new RaiffeisenSbpFake({ secretKey: SECRET, sbpMerchantId: 'MA0000000552' });
  await fake.start();
});

afterAll(async () => {
  await tracing?.shutdown();
  delete process.env.OTEL_TRACES_SAMPLER;
  await fake?.stop();
  await new Promise((resolve) => collector?.close(resolve));
});

it('sends provider calls made inside a traced operation without trace headers', async () => {
  expect(tracing).toBeDefined();
  const provider = raiffeisenSbpProvider({ apiUrl: fake.apiUrl, sbpMerchantId: 'MA0000000552', secretKey: SECRET, callbackIps: [] });
  const linkId = randomUUID();
  const traceparent = await inSpan('links.select', {}, async () => {
    const payment = await provider.createPayment(
      {
        orderId: `${linkId}-1`,
        linkId,
        method: 'sbp',
        network: null,
        payerAmountKopecks: 100,
        description: null,
        merchantOrderId: null,
        expiresAt: new Date(Date.now() + 60_000),
        returnUrl: null,
      },
      { timeoutMs: 5000 },
    );
    await provider.getPayment({ gatewayPaymentId: payment.gatewayPaymentId, orderId: `${linkId}-1` }, { timeoutMs: 5000 });
    return currentTraceparent();
  });
  // The operation was traced: a propagator had a context to write.
  expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  expect(fake.requests.map((r) => r.kind)).toEqual(['register', 'payment_info']);
  for (const r of fake.requests) {
    expect(r.headers.traceparent).toBeUndefined();
    expect(r.headers.tracestate).toBeUndefined();
  }
});
