import { request } from 'node:http';
import type { RunningService } from '@pl/config';
import { createLogger } from '@pl/telemetry';
import { createTestDatabase, FaultProxy, uniqueNamespace, type TestDatabase } from '@pl/testing';
import { Client } from 'pg';
import { startNotifier } from '../src/app';
import { loadConfig } from '../src/config';
import { migrateNotifier } from '../src/data/migrate';

const log = createLogger('notifier-test', 'silent');

const get = (port: number, path: string): Promise<{ status: number; body: unknown }> =>
  new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    })
      .on('error', reject)
      .end();
  });

describe('notifier service', () => {
  let db: TestDatabase;
  let pgProxy: FaultProxy;
  let service: RunningService;

  beforeAll(async () => {
    db = await createTestDatabase('notifier');
    await migrateNotifier(db.url, log);
    pgProxy = await new FaultProxy('127.0.0.1', 5432).start();
    const config = loadConfig({ DATABASE_URL: pgProxy.rewrite(db.url), BUS_NAMESPACE: uniqueNamespace('notifier'), OPS_PORT: '0', LOG_LEVEL: 'silent' });
    service = await startNotifier(config, log);
  });

  afterAll(async () => {
    await service?.stop();
    await pgProxy?.close();
    await db?.drop();
  });

  it('answers 200 on /healthz and /readyz when Postgres and NATS answer', async () => {
    expect(service.opsPort).toBeGreaterThan(0);
    await expect(get(service.opsPort, '/healthz')).resolves.toEqual({ status: 200, body: { status: 'ok' } });
    await expect(get(service.opsPort, '/readyz')).resolves.toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('reports not ready while Postgres is unreachable and ready again once it is back', async () => {
    pgProxy.down();
    await expect(get(service.opsPort, '/readyz')).resolves.toEqual({ status: 503, body: { status: 'not_ready' } });
    await expect(get(service.opsPort, '/healthz')).resolves.toMatchObject({ status: 200 });
    pgProxy.up();
    await expect(get(service.opsPort, '/readyz')).resolves.toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('migrates the inbox table into the notifier schema, and a second run changes nothing', async () => {
    await migrateNotifier(db.url, log);
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ column_name: string; data_type: string }>(
        `SELECT column_name, data_type FROM information_schema.columns
          WHERE table_schema = 'notifier' AND table_name = 'inbox_events' ORDER BY ordinal_position`,
      );
      expect(rows).toEqual([
        { column_name: 'event_id', data_type: 'uuid' },
        { column_name: 'payload', data_type: 'jsonb' },
        { column_name: 'received_at', data_type: 'timestamp with time zone' },
      ]);
      const applied = await client.query('SELECT name FROM notifier.schema_migrations');
      expect(applied.rows).toEqual([{ name: '20261122000400000_inbox_events' }]);
    } finally {
      await client.end();
    }
  });
});
