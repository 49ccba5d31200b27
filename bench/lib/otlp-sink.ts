import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in OpenTelemetry collector: accepts OTLP/HTTP `POST /v1/traces` (the services' exporter sends
 * JSON), counts the spans per `service.name` and answers 200 at once, so exporting costs the services what
 * it costs against a real collector, and the bench learns that tracing really was on.
 */
export class OtlpSink {
  readonly spans = new Map<string, number>();
  requests = 0;
  bytes = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpSink> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sink = new OtlpSink(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method === 'POST' && req.url?.startsWith('/v1/traces')) sink.count(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    return sink;
  }

  /** Spans counted so far, all services together. */
  total(): number {
    let n = 0;
    for (const v of this.spans.values()) n += v;
    return n;
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries(this.spans);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // A scan, not JSON.parse: the sink must stay cheap next to the processes it measures.
  private count(body: string): void {
    this.requests += 1;
    this.bytes += body.length;
    const service = /"key":"service\.name","value":\{"stringValue":"([^"]+)"/.exec(body)?.[1] ?? 'unknown';
    let spans = 0;
    for (let at = body.indexOf('"spanId":"'); at !== -1; at = body.indexOf('"spanId":"', at + 10)) spans += 1;
    this.spans.set(service, (this.spans.get(service) ?? 0) + spans);
  }
}
