import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a real dependency (Postgres, Redis, NATS) that a test can cut: `down()` resets
 * every open connection and refuses new ones, as a crashed server would; `up()` lets traffic through
 * again. It lets outage tests run without stopping the machine's shared servers.
 */
export class FaultProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private isUp = true;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  private accept(client: Socket): void {
    if (!this.isUp) {
      client.destroy();
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }

  /** Resets all connections and refuses new ones until {@link up}. */
  down(): void {
    this.isUp = false;
    // destroy(), not resetAndDestroy(): the latter can leave a piped handle open and keep Jest from exiting.
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  up(): void {
    this.isUp = true;
  }

  /** The target URL rewritten to go through this proxy. */
  rewrite(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString().replace(/\/$/, '');
  }

  async close(): Promise<void> {
    this.down();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
