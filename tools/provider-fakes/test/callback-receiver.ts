import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallbackVerdict, PaymentProvider } from '@pl/providers';

/**
 * The gateway's part in a test: receives a provider's callbacks over HTTP, judges each with the adapter's
 * verifyCallback (raw bytes, headers, the socket's address) and answers what the verdict says.
 */
export class CallbackReceiver {
  readonly verdicts: CallbackVerdict[] = [];
  private readonly server: Server;
  private waiters: { count: number; resolve: () => void }[] = [];

  constructor(provider: () => PaymentProvider) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const verdict = provider().verifyCallback({
          rawBody: Buffer.concat(chunks),
          header: (name) => {
            const value = req.headers[name.toLowerCase()];
            return Array.isArray(value) ? value[0] : value;
          },
          remoteAddress: req.socket.remoteAddress ?? '',
        });
        this.verdicts.push(verdict);
        res.writeHead(verdict.reply.status, { 'Content-Type': verdict.reply.contentType }).end(verdict.reply.body);
        this.waiters = this.waiters.filter((w) => (this.verdicts.length >= w.count ? (w.resolve(), false) : true));
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callbacks/v1/raiffeisen-sbp`;
  }

  /** Resolves once `count` callbacks in all have been judged. */
  received(count: number): Promise<void> {
    if (this.verdicts.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
