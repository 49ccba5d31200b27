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
    const namespace = uniqueNamespace('notifier');
    const config = loadConfig({
      DATABASE_URL: pgProxy.rewrite(db.url),
      BUS_NAMESPACE: namespace,
      OPS_PORT: '0',
      LOG_LEVEL: 'silent',
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
      PAYMENT_EVENTS_TOPIC: `payment-events-${namespace}`,
      KAFKA_GROUP_ID: `notifier-${namespace}`,
      KAFKA_SESSION_TIMEOUT_MS: '6000',
    });
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

  it('migrates the inbox, delivery and attempt tables into the notifier schema, and a second run changes nothing', async () => {
    await migrateNotifier(db.url, log);
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      // The tables, not their time partitions (ADR 22).
      const { rows } = await client.query<{ table_name: string }>(
        `SELECT c.relname AS table_name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'notifier' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`,
      );
      expect(rows.map((r) => r.table_name)).toEqual(['deliveries', 'delivery_attempts', 'inbox_events', 'schema_migrations']);
      const applied = await client.query('SELECT name FROM notifier.schema_migrations ORDER BY run_on, id');
      expect(applied.rows).toEqual([
        { name: '20261122000400000_deliveries' },
        { name: '20261122000700000_delivery_traceparent' },
        { name: '20261124000100000_webhook_test_deliveries' },
        { name: '20261125000100000_delivery_livemode' },
        { name: '20261126000100000_events' },
        { name: '20261128120000200_time_partitions' },
        { name: '20261130150000000_payout_events' },
      ]);
    } finally {
      await client.end();
    }
  });
});
