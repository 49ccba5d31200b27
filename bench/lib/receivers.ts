import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wallNow } from './stats';

/**
 * A merchant's webhook endpoint on 127.0.0.1. Records, per payment link, when its first webhook had fully
 * arrived (wall ms), and answers 200 at once or after `delayMs` (a slow merchant).
 */
export class BenchReceiver {
  /** Wall ms of every request's arrival, in order. */
  readonly arrivals: number[] = [];
  readonly firstByLink = new Map<string, number>();
  inFlight = 0;
  peakInFlight = 0;
  private waiters: { ids: Set<string>; resolve: () => void }[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(delayMs = 0): Promise<BenchReceiver> {
    const server = createServer();
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const r = new BenchReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = wallNow();
        r.arrivals.push(at);
        r.inFlight += 1;
        r.peakInFlight = Math.max(r.peakInFlight, r.inFlight);
        // The link id is all the bench needs; a regex keeps JSON.parse off the hot path.
        const id = /"payment_link_id":"([0-9a-f-]{36})"/.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
        if (id && !r.firstByLink.has(id)) {
          r.firstByLink.set(id, at);
          r.notify(id);
        }
        const answer = (): void => {
          r.inFlight -= 1;
          if (!res.writableEnded) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        };
        if (delayMs > 0) setTimeout(answer, delayMs);
        else answer();
      });
    });
    return r;
  }

  /** Resolves once every id has had a webhook, or after `timeoutMs` (then some are missing: the caller counts them). */
  waitForAll(ids: readonly string[], timeoutMs: number): Promise<void> {
    const missing = new Set(ids.filter((id) => !this.firstByLink.has(id)));
    if (missing.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = { ids: missing, resolve };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      }, timeoutMs);
      waiter.resolve = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(waiter);
    });
  }

  /** Arrivals per second between two wall times. */
  rate(fromMs: number, toMs: number): number {
    const n = this.arrivals.filter((t) => t >= fromMs && t < toMs).length;
    return n / ((toMs - fromMs) / 1000);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private notify(id: string): void {
    for (const w of this.waiters) {
      w.ids.delete(id);
      if (w.ids.size === 0) w.resolve();
    }
    this.waiters = this.waiters.filter((w) => w.ids.size > 0);
  }
}
