import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from './clock';

export interface ReceivedWebhook {
  at: number;
  linkId: string | undefined;
  webhookId: string | undefined;
  attempt: number;
  signatureOk: boolean;
}

/** The merchants' webhook endpoint: answers 200 to everything and keeps what arrived, checking signatures. */
export class WebhookSink {
  readonly received: ReceivedWebhook[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(secret: string, clock: Clock): Promise<WebhookSink> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sink = new WebhookSink(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        let linkId: string | undefined;
        try {
          linkId = (JSON.parse(body.toString('utf8')) as { data?: { payment_link_id?: string } }).data?.payment_link_id;
        } catch {
          linkId = undefined;
        }
        const expected = createHmac('sha256', secret).update(body).digest();
        const given = Buffer.from(String(req.headers['x-webhook-signature'] ?? ''), 'hex');
        sink.received.push({
          at: clock.now(),
          linkId,
          webhookId: req.headers['x-webhook-id'] as string | undefined,
          attempt: Number(req.headers['x-webhook-attempt'] ?? 0),
          signatureOk: given.length === expected.length && timingSafeEqual(given, expected),
        });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    return sink;
  }

  /** Link ids that got at least one webhook. */
  linkIds(): Set<string> {
    return new Set(this.received.flatMap((w) => (w.linkId ? [w.linkId] : [])));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
