import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Db } from '@pl/db';
import { createLogger } from '@pl/telemetry';
import { createTestDatabase, uniqueNamespace, type TestDatabase } from '@pl/testing';
import { AccountRepository, migrateGateway } from '@pl/gateway/testing';
import { migrateLinks } from '@pl/links/testing';
import { migrateNotifier } from '@pl/notifier/testing';
import { DEV_WEBHOOK_SECRET_KEY, migrateShops, SecretBox, ShopRepository } from '@pl/shops/testing';
import { httpClient, type HttpClient } from '../support/http';
import { metricSum } from '../support/metrics';
import { startServiceProcess, stopServiceProcess, type ServiceName, type ServiceProcess } from '../support/processes';
import { sandboxPaymentId, signProviderBody, TEST_PROVIDER_SECRET, WebhookReceiver } from '../support/system';

/**
 * The services run as real processes from dist/ (npm test builds it): the OpenTelemetry instrumentations
 * patch modules as Node's require loads them, which Jest's module registry bypasses, so in-process
 * services would export no pg, http or express spans. Their exporters post OTLP/HTTP JSON to a receiver here.
 */

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

// OTLP span kinds as the JSON encoding numbers them.
const KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: {
      spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpKeyValue[] }[];
    }[];
  }[];
}

const valueOf = (v: OtlpValue): unknown => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
const attributesOf = (kvs: OtlpKeyValue[] = []): Record<string, unknown> => Object.fromEntries(kvs.map((kv) => [kv.key, valueOf(kv.value)]));

/** An OTLP/HTTP trace receiver (JSON, as exporter-trace-otlp-http sends it) whose spans tests await. */
class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private waiters: (() => void)[] = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
          receiver.take(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private take(body: OtlpExport): void {
    for (const rs of body.resourceSpans ?? []) {
      const service = String(attributesOf(rs.resource?.attributes)['service.name']);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            service,
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ?? '',
            name: s.name,
            kind: s.kind,
            attributes: attributesOf(s.attributes),
          });
        }
      }
    }
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }

  /** Resolves with the first span (received or still to come) that matches. */
  async waitFor(match: (s: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
    for (;;) {
      const found = this.spans.find(match);
      if (found) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let otlp: OtlpReceiver;
let webhooks: WebhookReceiver;
let database: TestDatabase;
let services: ServiceProcess[] = [];
let http: HttpClient;
let keys: Record<string, string>;
let testKeys: Record<string, string>;
let shopId: number;

beforeAll(async () => {
  otlp = await OtlpReceiver.start();
  webhooks = await WebhookReceiver.start();
  const log = createLogger('test', 'silent');
  database = await createTestDatabase('trace');
  await migrateGateway(database.url, log);
  await migrateShops(database.url, log);
  await migrateLinks(database.url, log);
  await migrateNotifier(database.url, log);

  const namespace = uniqueNamespace('tr');
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: database.url,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    NATS_URL: process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    BUS_NAMESPACE: namespace,
    REDIS_KEY_PREFIX: `${namespace}:`,
    GATEWAY_PORT: '0',
    OPS_PORT: '0',
    PAYMENT_EVENTS_TOPIC: `${namespace}.payment-events`,
    KAFKA_GROUP_ID: `${namespace}-notifier`,
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    PROVIDER_SANDBOX_SECRET: TEST_PROVIDER_SECRET,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    // Export every 50 ms rather than every 5 s, so the test waits for spans, not for the batch timer.
    OTEL_BSP_SCHEDULE_DELAY: '50',
  };
  const names: ServiceName[] = ['shops', 'links', 'notifier', 'gateway'];
  services = await Promise.all(names.map((n) => startServiceProcess(n, env)));
  const gateway = services.find((s) => s.name === 'gateway')!;
  http = httpClient(`http://127.0.0.1:${Number(gateway.started.port)}`);

  const accountsDb = new Db({ url: database.url, schema: 'gateway', log });
  const shopsDb = new Db({ url: database.url, schema: 'shops', log });
  try {
    const created = await new AccountRepository(accountsDb).createMerchant({
      email: `m-${randomBytes(6).toString('hex')}@example.com`,
      password: `pw-${randomBytes(8).toString('hex')}`,
      emailConfirmed: true,
    });
    keys = { 'X-API-Key': created.apiKey, 'X-API-Secret': created.apiSecret };
    testKeys = { 'X-API-Key': created.testApiKey, 'X-API-Secret': created.testApiSecret };
    const shop = await new ShopRepository(shopsDb, SecretBox.fromBase64(DEV_WEBHOOK_SECRET_KEY)).createShop({
      merchant_id: created.merchant.id,
      name: 'Traced shop',
      status: 'approved',
      fee_payer: 'merchant',
      crypto_bps: 100,
      sbp_bps: 100,
      webhook_url: webhooks.url,
      webhook_secret: 'traced-shop-webhook-secret',
    });
    shopId = shop.shop.id;
  } finally {
    await Promise.all([accountsDb.close(), shopsDb.close()]);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(services.map((s) => stopServiceProcess(s)));
  await webhooks?.close();
  await otlp?.close();
  await database?.drop();
});

/** The span's chain of ancestors, nearest first, among the spans received so far. */
const ancestorsOf = (span: ReceivedSpan): ReceivedSpan[] => {
  const chain: ReceivedSpan[] = [];
  let current: ReceivedSpan | undefined = span;
  while (current?.parentSpanId) {
    const parentId: string = current.parentSpanId;
    current = otlp.spans.find((s) => s.spanId === parentId && s.traceId === span.traceId);
    if (current) chain.push(current);
  }
  return chain;
};

/**
 * Every header a merchant's server receives (docs/product-decisions.md, "Webhooks"), lower-cased as Node gives them: the
 * signed ones (this shop has a secret), and what HTTP needs (host, content-length, connection) plus our user-agent.
 */
const DOCUMENTED_WEBHOOK_HEADERS = [
  'connection',
  'content-length',
  'content-type',
  'host',
  'service-event',
  'service-signature',
  'user-agent',
  'webhook-id',
  'webhook-signature',
  'webhook-timestamp',
  'x-webhook-attempt',
  'x-webhook-event',
  'x-webhook-id',
  'x-webhook-signature',
  'x-webhook-timestamp',
];

const parentOf = (span: ReceivedSpan): ReceivedSpan | undefined =>
  otlp.spans.find((s) => s.spanId === span.parentSpanId && s.traceId === span.traceId);

/** The gateway's HTTP server span of the response with this X-Request-Id. */
const gatewaySpanOf = (requestId: string): Promise<ReceivedSpan> =>
  otlp.waitFor((s) => s.service === 'gateway' && s.kind === KIND.SERVER && s.attributes['http.request_id'] === requestId);

describe('tracing across the services', () => {
  it('follows a create from the gateway over NATS to links and on to shops in one trace', async () => {
    const requestId = `trace-create-${randomUUID()}`;
    const res = await http.post(
      '/merchant/v1/payment-links',
      { shop_id: shopId, amount: '500.00', order_id: `order-${randomUUID()}` },
      { headers: { ...keys, 'X-Request-Id': requestId } },
    );
    expect(res.status).toBe(201);

    const root = await gatewaySpanOf(requestId);
    expect(root.attributes['pl.mode']).toBe('live');
    const inTrace = (s: ReceivedSpan): boolean => s.traceId === root.traceId;
    const shopsServer = await otlp.waitFor((s) => inTrace(s) && s.service === 'shops' && s.kind === KIND.SERVER);
    const linksServer = await otlp.waitFor((s) => inTrace(s) && s.service === 'links' && s.kind === KIND.SERVER);

    // shops handled a request links sent, which links handled for a request the gateway sent.
    const shopsCaller = parentOf(shopsServer);
    expect(shopsCaller).toMatchObject({ service: 'links', kind: KIND.CLIENT });
    expect(ancestorsOf(shopsCaller!)).toContain(linksServer);
    expect(parentOf(linksServer)).toMatchObject({ service: 'gateway', kind: KIND.CLIENT });
    expect(ancestorsOf(linksServer)).toContain(root);
    // The official instrumentations' spans join the same trace: the links service's Postgres queries.
    const isPostgres = (s: ReceivedSpan): boolean => s.attributes['db.system.name'] === 'postgresql' || s.attributes['db.system'] === 'postgresql';
    await otlp.waitFor((s) => inTrace(s) && s.service === 'links' && s.kind === KIND.CLIENT && isPostgres(s));
  });

  it('tells test traffic from live on every hop: the request, the links service and the webhook send carry pl.mode', async () => {
    const requestId = `trace-test-mode-${randomUUID()}`;
    const created = await http.post(
      '/merchant/v1/payment-links',
      { shop_id: shopId, amount: '300.00', order_id: `order-${randomUUID()}` },
      { headers: { ...testKeys, 'X-Request-Id': requestId } },
    );
    expect({ status: created.status, livemode: created.body.livemode }).toEqual({ status: 201, livemode: false });
    const root = await gatewaySpanOf(requestId);
    expect(root.attributes['pl.mode']).toBe('test');
    const linksServer = await otlp.waitFor((s) => s.traceId === root.traceId && s.service === 'links' && s.kind === KIND.SERVER);
    expect(linksServer.attributes['pl.mode']).toBe('test');

    const linkId = created.body.id as string;
    const simulated = await http.post(`/p/${linkId}/simulate`, { status: 'paid' });
    expect(simulated.status).toBe(200);
    const hit = await webhooks.nthFor(linkId, 1);
    expect(hit.json).toMatchObject({ event: 'payment.succeeded', livemode: false });
    const send = await otlp.waitFor(
      (s) => s.service === 'notifier' && s.name === 'webhook send' && s.attributes['webhook.id'] === hit.headers['webhook-id'],
    );
    expect(send.attributes['pl.mode']).toBe('test');
  });

  it('follows a payment from the provider callback through the outbox, Kafka and the notifier to the webhook request', async () => {
    const created = await http.post(
      '/merchant/v1/payment-links',
      { shop_id: shopId, amount: '700.00', order_id: `order-${randomUUID()}` },
      { headers: keys },
    );
    expect(created.status).toBe(201);
    const linkId = created.body.id as string;

    const requestId = `trace-paid-${randomUUID()}`;
    const body = JSON.stringify({ gateway_payment_id: sandboxPaymentId(linkId), status: 'paid' });
    const callback = await http.post('/callbacks/v1/sandbox', body, {
      headers: { 'X-Provider-Signature': signProviderBody(body), 'X-Request-Id': requestId },
    });
    expect(callback.status).toBe(200);
    const hit = await webhooks.nthFor(linkId, 1);

    const root = await gatewaySpanOf(requestId);
    const inTrace = (s: ReceivedSpan): boolean => s.traceId === root.traceId;
    // The merchant sees the documented webhook headers and what HTTP itself needs, never our trace context.
    expect(Object.keys(hit.headers).sort()).toEqual(DOCUMENTED_WEBHOOK_HEADERS);

    const publish = await otlp.waitFor((s) => inTrace(s) && s.service === 'links' && s.kind === KIND.PRODUCER);
    const consume = await otlp.waitFor((s) => inTrace(s) && s.service === 'notifier' && s.kind === KIND.CONSUMER);
    const send = await otlp.waitFor((s) => inTrace(s) && s.service === 'notifier' && s.name === 'webhook send');

    // callback -> links (the transaction that wrote the outbox row) -> relay publish -> consume -> send.
    expect(ancestorsOf(publish)).toContain(root);
    expect(ancestorsOf(publish).some((s) => s.service === 'links' && s.kind === KIND.SERVER)).toBe(true);
    expect(parentOf(consume)).toBe(publish);
    expect(parentOf(send)).toBe(consume);
    // The delivery's own span records the answer; the request is sent untraced, so nothing hangs under it.
    expect(send.attributes['http.response.status_code']).toBe(200);
    expect(send.attributes['webhook.outcome']).toBe('succeeded');
    expect(send.attributes['pl.mode']).toBe('live');
    expect(otlp.spans.filter((s) => s.parentSpanId === send.spanId)).toEqual([]);

    // Log lines carry the trace: the gateway's access line of the callback names the same trace id.
    const gatewayLines = services.find((p) => p.name === 'gateway')!.lines;
    const access = gatewayLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.request_id === requestId && l.msg === 'request');
    expect(access).toMatchObject({ trace_id: root.traceId, span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });
});

describe('metrics on the ops ports', () => {
  const scrape = async (name: ServiceName): Promise<string> => {
    const ops = Number(services.find((p) => p.name === name)!.started.ops_port);
    const res = await fetch(`http://127.0.0.1:${ops}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  };

  it("serves each service's request, NATS, outbox, Kafka and webhook metrics in Prometheus text after the flows above", async () => {
    const [gateway, links, shops, notifier] = await Promise.all([scrape('gateway'), scrape('links'), scrape('shops'), scrape('notifier')]);
    for (const text of [gateway, links, shops, notifier]) expect(text).toContain('process_cpu_user_seconds_total');
    // Route templates, never raw paths with ids.
    expect(
      metricSum(gateway, 'http_server_request_duration_seconds_count', {
        method: 'POST',
        route: '/merchant/v1/payment-links',
        status: '201',
        mode: 'live',
      }),
    ).toBeGreaterThan(0);
    expect(
      metricSum(gateway, 'http_server_request_duration_seconds_count', {
        method: 'POST',
        route: '/merchant/v1/payment-links',
        status: '201',
        mode: 'test',
      }),
    ).toBe(1);
    expect(metricSum(gateway, 'http_server_request_duration_seconds_count', { route: '/callbacks/v1/:provider', status: '200' })).toBe(1);
    expect(metricSum(gateway, 'nats_client_request_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    expect(metricSum(links, 'nats_server_request_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    expect(metricSum(links, 'nats_client_request_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    expect(metricSum(links, 'outbox_backlog_rows', {})).toBe(0);
    expect(metricSum(links, 'outbox_oldest_age_seconds', {})).toBe(0);
    expect(metricSum(shops, 'nats_server_request_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    // One payment of each mode above: the mode label tells them apart.
    expect(metricSum(notifier, 'webhook_attempts_total', { outcome: 'succeeded', mode: 'live' })).toBe(1);
    expect(metricSum(notifier, 'webhook_attempts_total', { outcome: 'succeeded', mode: 'test' })).toBe(1);
    expect(metricSum(notifier, 'webhook_queue_depth', { state: 'due' })).toBe(0);
    expect(metricSum(notifier, 'kafka_consumer_messages_total', { outcome: 'ok' })).toBe(2);
    expect(metricSum(notifier, 'kafka_consumer_lag', {})).toBe(0);
  });
});
