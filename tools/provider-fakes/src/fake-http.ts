import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a fake received, as it arrived: for assertions on headers (no `traceparent`), URLs (no secret), bodies. */
export interface RecordedRequest {
  /** What the request asked for, in the fake's words (`register`, `payment_info`, ...); `unknown` for no route. */
  readonly kind: string;
  readonly method: string;
  /** The path and query as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /**
   * From the request's arrival to its answer written, ms, as the answer's `Server-Timing: fake;dur=` header says
   * (set when answered; unset for a request never answered): the provider's own time, its timers' lateness included.
   */
  handledMs?: number;
}

/**
 * A fault the next requests of a kind meet. `status` answers that status (5xx, 429); with `processed` the fake
 * does the work first, as a provider whose answer was lost would. `hang` never answers (the client must abort);
 * `delay` answers late; `reset` drops the connection.
 */
export type Fault =
  | { readonly type: 'status'; readonly status: number; readonly processed?: boolean }
  | { readonly type: 'hang'; readonly processed?: boolean }
  | { readonly type: 'delay'; readonly ms: number }
  | { readonly type: 'reset' };

export interface JsonAnswer {
  readonly status: number;
  readonly body?: unknown;
  /** Body text to send as is (a number written `100.50`), instead of `body`. */
  readonly text?: string;
}

/** Requests, counts by kind, and queued faults: what every provider fake keeps. */
export class RequestLedger {
  readonly requests: RecordedRequest[] = [];
  /** Per kind, runs of one fault with how many requests each still meets: a run of millions is one entry, not millions. */
  private readonly faults = new Map<string, { fault: Fault; left: number }[]>();

  private waiters: { kind: string; count: number; resolve: () => void }[] = [];

  record(request: RecordedRequest): void {
    this.requests.push(request);
    this.waiters = this.waiters.filter((w) => (this.count(w.kind) >= w.count ? (w.resolve(), false) : true));
  }

  /** Resolves once `count` requests of `kind` have arrived: a test awaits the request instead of sleeping. */
  arrived(kind: string, count = 1): Promise<void> {
    if (this.count(kind) >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ kind, count, resolve }));
  }

  /** How many requests of this kind arrived (faulted ones included: each could have moved money). */
  count(kind: string): number {
    return this.requests.filter((r) => r.kind === kind).length;
  }

  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.requests) out[r.kind] = (out[r.kind] ?? 0) + 1;
    return out;
  }

  /** The next `times` requests of `kind` (or of any kind, `*`) meet `fault`. */
  inject(kind: string, fault: Fault, times = 1): void {
    if (times <= 0) return;
    const queue = this.faults.get(kind) ?? [];
    queue.push({ fault, left: times });
    this.faults.set(kind, queue);
  }

  takeFault(kind: string): Fault | undefined {
    return this.take(kind) ?? this.take('*');
  }

  private take(kind: string): Fault | undefined {
    const queue = this.faults.get(kind);
    const run = queue?.[0];
    if (!run) return undefined;
    if (--run.left === 0) queue.shift();
    return run.fault;
  }

  clear(): void {
    this.requests.length = 0;
    this.faults.clear();
  }
}

const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(res: ServerResponse, answer: JsonAnswer): void {
  const text = answer.text ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
  res.writeHead(answer.status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * {@link sendJson}, saying how long the fake took since `arrivedAt` (`performance.now()` at the request's arrival) in
 * a `Server-Timing` header, as a provider may; returns that time (ms, 0.01 ms steps).
 */
export function sendTimedJson(res: ServerResponse, answer: JsonAnswer, arrivedAt: number): number {
  const handledMs = Math.round((performance.now() - arrivedAt) * 100) / 100;
  res.setHeader('Server-Timing', `fake;dur=${handledMs}`);
  sendJson(res, answer);
  return handledMs;
}

/** A node:http server on 127.0.0.1 that can be stopped at once, hung requests included. */
export class FakeServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  constructor(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {
    this.server = createServer((req, res) => {
      handler(req, res).catch(() => {
        if (!res.headersSent) sendJson(res, { status: 500, body: { code: 'ERROR.INTERNAL', message: 'fake failed' } });
        else res.destroy();
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
