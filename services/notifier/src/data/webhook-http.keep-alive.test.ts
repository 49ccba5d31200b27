import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { HttpWebhookSender } from './webhook-http.sender';

/** A receiver that counts connections and requests; `handle` answers each request (with its number on that connection). */
async function receiver(handle: (req: IncomingMessage, res: ServerResponse, nthOnConnection: number) => void): Promise<{
  url: string;
  connections: Socket[];
  requests: number;
  close: () => Promise<void>;
}> {
  const connections: Socket[] = [];
  const perSocket = new WeakMap<Socket, number>();
  const state = { requests: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.requests += 1;
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      handle(req, res, n);
    });
  });
  server.on('connection', (s: Socket) => connections.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    connections,
    get requests() {
      return state.requests;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const closed = (s: Socket): Promise<void> => (s.destroyed ? Promise.resolve() : new Promise((resolve) => s.once('close', () => resolve())));

describe('webhook connections', () => {
  const sender = new HttpWebhookSender({ timeoutMs: 2000, allowPrivateTargets: true });
  const body = Buffer.from('{"event":"payment.succeeded"}');
  const send = (url: string) => sender.send(url, { 'content-type': 'application/json' }, body, { traceparent: null, mode: 'live' });

  afterAll(() => sender.close());

  it('sends webhooks one after another to a receiver over one kept connection', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end('ok'));
    try {
      for (let i = 0; i < 3; i += 1) expect(await send(r.url)).toMatchObject({ ok: true, statusCode: 200, error: null });
      expect(r.requests).toBe(3);
      expect(r.connections).toHaveLength(1);
    } finally {
      await r.close();
    }
  });

  it('sends the attempt again on a fresh connection when the receiver drops a kept one as it is reused', async () => {
    // A receiver that closes a connection on its second request, as one whose idle time-out struck just then.
    const r = await receiver((req, res, n) => (n === 1 ? res.writeHead(200).end('ok') : req.socket.destroy()));
    try {
      expect(await send(r.url)).toMatchObject({ ok: true, statusCode: 200 });
      expect(await send(r.url)).toMatchObject({ ok: true, statusCode: 200, error: null, responseHead: Buffer.from('ok') });
      expect(r.requests).toBe(3);
      expect(r.connections).toHaveLength(2);
    } finally {
      await r.close();
    }
  });

  it("does not send again when a fresh connection is dropped: that is the attempt's failure", async () => {
    const r = await receiver((req) => req.socket.destroy());
    try {
      expect(await send(r.url)).toMatchObject({ ok: false, statusCode: null, error: 'connection failed: ECONNRESET' });
      expect(r.requests).toBe(1);
    } finally {
      await r.close();
    }
  });

  it('closes the connection after an answer other than 2xx: a failing receiver may not serve a second request on it', async () => {
    // Like a bare-bones server that answers one request per connection and ignores the rest.
    const r = await receiver((_req, res, n) => (n === 1 ? res.writeHead(503).end('busy') : undefined));
    try {
      expect(await send(r.url)).toMatchObject({ ok: false, statusCode: 503 });
      expect(await send(r.url)).toMatchObject({ ok: false, statusCode: 503 });
      expect(r.connections).toHaveLength(2);
    } finally {
      await r.close();
    }
  });

  it('closes the connection of a response it stopped reading (a body past 4 KiB), so no unread bytes wait on a kept one', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end(Buffer.alloc(64 * 1024, 'x')));
    try {
      expect(await send(r.url)).toMatchObject({ ok: true, statusCode: 200 });
      await closed(r.connections[0]!);
      expect(await send(r.url)).toMatchObject({ ok: true, statusCode: 200 });
      expect(r.connections).toHaveLength(2);
    } finally {
      await r.close();
    }
  });
});
