import { createServer, type Server } from 'node:http';
import { listen } from './listen';

const answering = (name: string): Server => createServer((_req, res) => res.end(name));

describe('listen', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it('lets two servers share a port with reusePort, and both answer on it', async () => {
    const first = answering('first');
    const second = answering('second');
    servers.push(first, second);
    const port = await listen(first, { port: 0, host: '127.0.0.1', reusePort: true });
    await expect(listen(second, { port, host: '127.0.0.1', reusePort: true })).resolves.toBe(port);

    // The kernel spreads new connections between them: each answers within a few hundred fresh connections.
    const seen = new Set<string>();
    for (let i = 0; i < 500 && seen.size < 2; i++) {
      seen.add(await (await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } })).text());
    }
    expect([...seen].sort()).toEqual(['first', 'second']);
  });

  it('refuses a taken port without reusePort', async () => {
    const first = answering('first');
    const second = answering('second');
    servers.push(first);
    const port = await listen(first, { port: 0, host: '127.0.0.1' });
    await expect(listen(second, { port, host: '127.0.0.1' })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
