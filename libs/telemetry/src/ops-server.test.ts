import { createMetricsRegistry } from './metrics';
import { startOpsServer, type OpsServer } from './ops-server';

const readyz = async (server: OpsServer): Promise<{ status: number; body: unknown }> => {
  const res = await fetch(`http://127.0.0.1:${server.port}/readyz`);
  return { status: res.status, body: await res.json() };
};

describe('ops server /readyz', () => {
  const servers: OpsServer[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));
  const start = async (ready: () => Promise<boolean>): Promise<OpsServer> => {
    const server = await startOpsServer({ port: 0, host: '127.0.0.1', ready, readyTimeoutMs: 100 });
    servers.push(server);
    return server;
  };

  it('answers 200 when the check says ready and 503 when it says not or fails', async () => {
    expect(await readyz(await start(async () => true))).toEqual({ status: 200, body: { status: 'ready' } });
    expect(await readyz(await start(async () => false))).toEqual({ status: 503, body: { status: 'not_ready' } });
    expect(await readyz(await start(() => Promise.reject(new Error('down'))))).toEqual({ status: 503, body: { status: 'not_ready' } });
  });

  it('answers 503 when the check hangs (a dependency that does not answer is not ready), and a late answer changes nothing', async () => {
    let answer: (ok: boolean) => void = () => undefined;
    const server = await start(() => new Promise<boolean>((resolve) => (answer = resolve)));
    expect(await readyz(server)).toEqual({ status: 503, body: { status: 'not_ready' } });
    answer(true);
    // The process is still serving: the late answer was dropped, not written to a finished response.
    expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
  });
});

describe('ops server readiness metrics', () => {
  it('records the last /readyz answer and counts each flip between ready and not ready', async () => {
    const metrics = createMetricsRegistry('ops-test');
    let ok = true;
    const server = await startOpsServer({ port: 0, host: '127.0.0.1', ready: async () => ok, readyTimeoutMs: 100, metrics });
    try {
      const scrape = async (): Promise<{ ready: string | undefined; changes: string | undefined }> => {
        const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
        return {
          ready: /^readiness_ready\{app="ops-test"\} (\S+)$/m.exec(text)?.[1],
          changes: /^readiness_changes_total\{app="ops-test"\} (\S+)$/m.exec(text)?.[1],
        };
      };
      await readyz(server);
      await readyz(server);
      expect(await scrape()).toEqual({ ready: '1', changes: '0' });
      ok = false;
      expect((await readyz(server)).status).toBe(503);
      expect(await scrape()).toEqual({ ready: '0', changes: '1' });
      ok = true;
      await readyz(server);
      expect(await scrape()).toEqual({ ready: '1', changes: '2' });
    } finally {
      await server.close();
    }
  });
});
