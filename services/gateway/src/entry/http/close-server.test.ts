import { once } from 'node:events';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from './close-server';

/** GET / over `agent`: the Connection header of the answer, or the network error code. */
const get = (port: number, agent: Agent): Promise<string> =>
  new Promise((resolve) => {
    request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(`${res.statusCode} ${res.headers.connection}`));
    })
      .on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message))
      .end();
  });

describe('closeServer', () => {
  let server: Server;
  let port: number;
  let inFlight = 0;
  let allBusy: () => void = () => undefined;

  beforeEach(async () => {
    inFlight = 0;
    server = createServer((_req, res) => {
      inFlight++;
      if (inFlight === 4) allBusy();
      setTimeout(() => {
        inFlight--;
        res.end('ok');
      }, 50);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(() => {
    server.closeAllConnections();
    if (server.listening) server.close();
  });

  it('ends kept-alive connections that keep carrying requests well before the grace, losing no request in flight', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const outcomes: string[] = [];
    let closed = false;
    let warmedUp: () => void = () => undefined;
    const eightAnswers = new Promise<void>((resolve) => (warmedUp = resolve));
    // Four clients that reuse their connections back to back, as a busy ingress does.
    const client = async (): Promise<void> => {
      while (!closed) {
        outcomes.push(await get(port, agent));
        if (outcomes.length >= 8) warmedUp();
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await eightAnswers;
    // Stop while every connection has a request in flight: a connection idle at that instant is closed at
    // once, and a client writing to it in the same moment sees a reset (the race every keep-alive server has).
    await new Promise<void>((resolve) => (allBusy = resolve));

    const cut = jest.spyOn(server, 'closeAllConnections');
    await closeServer(server, 10_000);
    closed = true;
    await Promise.all(clients);
    agent.destroy();

    // Every connection ended by itself: the grace never ran out, so nothing was cut.
    expect(cut).not.toHaveBeenCalled();
    // Answers, then each connection told to close, then refused: never a request reset mid-flight.
    expect(outcomes.filter((o) => !/^(200 keep-alive|200 close|ECONNREFUSED)$/.test(o))).toEqual([]);
    expect(outcomes).toContain('200 close');
  }, 15_000);

  it('still cuts what is left once the grace has passed', async () => {
    server.removeAllListeners('request');
    server.on('request', () => undefined); // never answers
    const agent = new Agent({ keepAlive: true });
    const arrived = once(server, 'request');
    const pending = get(port, agent);
    await arrived;
    const cut = jest.spyOn(server, 'closeAllConnections');
    await closeServer(server, 300);
    expect(cut).toHaveBeenCalledTimes(1);
    expect(await pending).toBe('ECONNRESET');
    agent.destroy();
  }, 10_000);
});
