import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a test receiver got. */
export interface Hit {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What the receiver does with its n-th request (1-based): answer, or hold it open until released. */
export type Reply = { status: number; headers?: Record<string, string>; body?: string | Buffer } | 'hang';

/** A webhook receiver on 127.0.0.1 whose requests a test awaits as promises (no sleeps). */
export class Receiver {
  readonly hits: Hit[] = [];
  private readonly waiters: { n: number; resolve: (hit: Hit) => void }[] = [];
  private readonly held: ServerResponse[] = [];
  private server: Server | undefined;
  port = 0;
  /** Requests being handled right now, and the most there ever were at once. */
  open = 0;
  maxOpen = 0;

  constructor(public reply: (n: number, hit: Hit) => Reply = () => ({ status: 200 })) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.open += 1;
      this.maxOpen = Math.max(this.maxOpen, this.open);
      res.on('close', () => (this.open -= 1));
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const hit: Hit = { at: Date.now(), path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
        this.hits.push(hit);
        const n = this.hits.length;
        const r = this.reply(n, hit);
        if (r === 'hang') this.held.push(res);
        else res.writeHead(r.status, r.headers ?? {}).end(r.body ?? '');
        for (const w of this.waiters.filter((x) => x.n === n)) w.resolve(hit);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Resolves with the n-th request (1-based) once it has arrived. */
  nth(n: number): Promise<Hit> {
    const hit = this.hits[n - 1];
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  /** Answers every held request with 200. */
  release(): void {
    for (const res of this.held.splice(0)) if (!res.writableEnded) res.writeHead(200).end();
  }

  async close(): Promise<void> {
    this.release();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
