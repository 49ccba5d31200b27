import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * What a hostile webhook endpoint does once it has read a whole request:
 * - `hang`: never answers, keeps the connection open;
 * - `reset-on-request`: resets the connection (TCP RST) without a byte of answer;
 * - `reset-mid-headers`: sends half a status line and headers, then resets;
 * - `reset-mid-body`: sends a 500 head and part of its body, then resets;
 * - `endless-body`: a head with the given status, then body chunks as fast as the peer takes them;
 * - `trickle-headers`: the head one byte at a time, slowly enough never to finish;
 * - `trickle-body`: a 500 head at once, then the body one byte at a time, never finishing;
 * - `huge-headers`: a 200 head with more header bytes than any HTTP client accepts;
 * - `garbage`: bytes that are not HTTP at all;
 * - `redirect`: the given 3xx status to `location`.
 */
export type HostileBehaviour =
  | { kind: 'hang' }
  | { kind: 'reset-on-request' }
  | { kind: 'reset-mid-headers' }
  | { kind: 'reset-mid-body' }
  | { kind: 'endless-body'; status: number }
  | { kind: 'trickle-headers' }
  | { kind: 'trickle-body' }
  | { kind: 'huge-headers' }
  | { kind: 'garbage' }
  | { kind: 'redirect'; status: 301 | 302 | 303 | 307 | 308; location: string };

/** One TCP connection a hostile receiver accepted, and what became of it. */
export interface HostileConnection {
  /** `performance.now()` at accept, at the end of the request, and when the socket closed. */
  acceptedAt: number;
  requestAt: number | null;
  closedAt: number | null;
  /** Request headers, lower-cased names. */
  headers: Record<string, string>;
  /** Response bytes handed to the socket (for `endless-body`: what the peer let through). */
  bytesWritten: number;
}

const TRICKLE_EVERY_MS = 200;
const RESET_AFTER_MS = 100;
const ENDLESS_CHUNK = Buffer.alloc(64 * 1024, 'x');
/** `endless-body` stops here even if the peer keeps reading, so a broken client cannot fill the test's machine. */
const ENDLESS_CAP_BYTES = 512 * 1024 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');

/** Splits a request head into lower-cased headers; enough for what a webhook sender writes. */
function parseHeaders(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * A webhook endpoint on 127.0.0.1 that misbehaves at the TCP and HTTP level, written on raw node:net
 * so it can do what no HTTP server library lets it: reset, trickle, never end. It records every
 * connection so a test can check that the client let go of each one in time.
 */
export class HostileReceiver {
  readonly connections: HostileConnection[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private waiters: (() => void)[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(
    readonly name: string,
    readonly behaviour: HostileBehaviour,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook/${this.name}`;
  }

  /** Connections whose whole request arrived. */
  get requests(): HostileConnection[] {
    return this.connections.filter((c) => c.requestAt !== null);
  }

  async start(): Promise<this> {
    this.server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Resolves once a whole request has arrived (at once if one already has). */
  firstRequest(): Promise<void> {
    if (this.requests.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(socket: Socket): void {
    const conn: HostileConnection = { acceptedAt: performance.now(), requestAt: null, closedAt: null, headers: {}, bytesWritten: 0 };
    this.connections.push(conn);
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      conn.closedAt = performance.now();
      this.sockets.delete(socket);
    });
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf(HEAD_END);
      if (end < 0) return;
      conn.headers = parseHeaders(buffered.subarray(0, end).toString('latin1'));
      if (buffered.length - end - HEAD_END.length < Number(conn.headers['content-length'] ?? 0)) return;
      socket.off('data', onData);
      conn.requestAt = performance.now();
      for (const resolve of this.waiters.splice(0)) resolve();
      this.answer(socket, conn);
    };
    socket.on('data', onData);
  }

  private write(socket: Socket, conn: HostileConnection, data: string | Buffer): boolean {
    if (socket.destroyed) return false;
    conn.bytesWritten += Buffer.byteLength(data);
    return socket.write(data);
  }

  private trickle(socket: Socket, conn: HostileConnection, bytes: string): void {
    let i = 0;
    const timer = setInterval(() => {
      if (socket.destroyed) {
        clearInterval(timer);
        this.timers.delete(timer);
        return;
      }
      this.write(socket, conn, bytes[i % bytes.length]!);
      i += 1;
    }, TRICKLE_EVERY_MS);
    this.timers.add(timer);
  }

  /**
   * Resets once the peer has had time to read what was sent: a reset can make the peer's kernel drop
   * data not read yet, and the point is a response cut short, not one never seen.
   */
  private resetLater(socket: Socket): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      socket.resetAndDestroy();
    }, RESET_AFTER_MS);
    this.timers.add(timer);
  }

  private answer(socket: Socket, conn: HostileConnection): void {
    const b = this.behaviour;
    switch (b.kind) {
      case 'hang':
        return;
      case 'reset-on-request':
        socket.resetAndDestroy();
        return;
      case 'reset-mid-headers':
        this.write(socket, conn, 'HTTP/1.1 200 OK\r\nContent-Type: text/pl');
        this.resetLater(socket);
        return;
      case 'reset-mid-body':
        this.write(socket, conn, 'HTTP/1.1 500 Internal Server Error\r\nContent-Length: 100000\r\n\r\npartial body');
        this.resetLater(socket);
        return;
      case 'endless-body': {
        this.write(socket, conn, `HTTP/1.1 ${b.status} Whatever\r\nContent-Type: text/plain\r\nContent-Length: ${ENDLESS_CAP_BYTES}\r\n\r\n`);
        const pump = (): void => {
          // Honours back-pressure: what the peer does not read stays in the kernel's buffers, not here.
          while (!socket.destroyed && conn.bytesWritten < ENDLESS_CAP_BYTES) {
            if (!this.write(socket, conn, ENDLESS_CHUNK)) return void socket.once('drain', pump);
          }
        };
        pump();
        return;
      }
      case 'trickle-headers':
        this.trickle(socket, conn, 'HTTP/1.1 200 OK\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
        return;
      case 'trickle-body':
        this.write(socket, conn, 'HTTP/1.1 500 Internal Server Error\r\nContent-Length: 100000\r\n\r\n');
        this.trickle(socket, conn, 'slow');
        return;
      case 'huge-headers':
        // About 100 KiB of head; HTTP clients stop at some tens of KiB (Node at 16 KiB).
        this.write(socket, conn, `HTTP/1.1 200 OK\r\n${`X-Filler: ${'y'.repeat(90)}\r\n`.repeat(1000)}\r\n`);
        return;
      case 'garbage':
        this.write(socket, conn, 'SSH-2.0-OpenSSH_9.6\r\n\0\0\0\xff not http at all\r\n\r\n');
        return;
      case 'redirect':
        this.write(socket, conn, `HTTP/1.1 ${b.status} Moved\r\nLocation: ${b.location}\r\nContent-Length: 0\r\n\r\n`);
        return;
    }
  }
}

/** Starts one hostile receiver per entry, in parallel. */
export async function startHostileReceivers<K extends string>(behaviours: Record<K, HostileBehaviour>): Promise<Record<K, HostileReceiver>> {
  const entries = await Promise.all(
    (Object.entries(behaviours) as [K, HostileBehaviour][]).map(async ([name, b]) => [name, await new HostileReceiver(name, b).start()] as const),
  );
  return Object.fromEntries(entries) as Record<K, HostileReceiver>;
}
