import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in OpenTelemetry collector: accepts OTLP/HTTP `POST /v1/traces` (the services' exporter sends
 * JSON), counts the spans per `service.name` and answers 200 at once, so exporting costs the services what
 * it costs against a real collector, and the bench learns that tracing really was on.
 */
/** A span as {@link OtlpSink.record} keeps it: enough to time the hops of a trace. */
export interface RecordedSpan {
  service: string;
  name: string;
  traceId: string;
  startMs: number;
  endMs: number;
  /** A database span's statement (its `db.statement` or `db.query.text` attribute), when it has one. */
  statement?: string;
}

interface OtlpBody {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value?: { stringValue?: string } }[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        name: string;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: { key: string; value?: { stringValue?: string } }[];
      }[];
    }[];
  }[];
}

export class OtlpSink {
  readonly spans = new Map<string, number>();
  requests = 0;
  bytes = 0;
  /** While set, every span is also kept here (parsed: this costs the bench CPU, so only on request). */
  private recording: RecordedSpan[] | null = null;

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

  /** Keeps every span received from now until {@link stopRecording}. */
  startRecording(): void {
    this.recording = [];
  }

  stopRecording(): RecordedSpan[] {
    const spans = this.recording ?? [];
    this.recording = null;
    return spans;
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
    if (this.recording) this.keep(body, this.recording);
  }

  private keep(body: string, into: RecordedSpan[]): void {
    const ms = (nanos: string): number => Number(BigInt(nanos) / 1000n) / 1000;
    for (const rs of (JSON.parse(body) as OtlpBody).resourceSpans ?? []) {
      const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue ?? 'unknown';
      for (const ss of rs.scopeSpans ?? []) {
        for (const sp of ss.spans ?? []) {
          const statement = sp.attributes?.find((a) => a.key === 'db.statement' || a.key === 'db.query.text')?.value?.stringValue;
          into.push({
            service,
            name: sp.name,
            traceId: sp.traceId,
            startMs: ms(sp.startTimeUnixNano),
            endMs: ms(sp.endTimeUnixNano),
            ...(statement === undefined ? {} : { statement }),
          });
        }
      }
    }
  }
}
