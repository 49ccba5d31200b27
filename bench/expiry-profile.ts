/**
 * The expiry sweep's cost per expired link, measured where the machine's load cannot move it (`npm run
 * bench:expiry-profile`): shops, links and notifier from dist/ with no other load, `BENCH_DUE_LINKS` (default
 * 20,000) links falling due at once; from the instant they fall due until every one is expired, its event
 * published and taken in by the notifier, it adds up each process's CPU (utime + stime), Postgres's (the
 * database's backends, and with BENCH_PG_POSTMASTER_PID the whole server: WAL writer, checkpointer), the WAL
 * written and, when the server has pg_stat_statements loaded, every statement's calls, rows and time. CPU time is
 * the figure to compare between builds: a busy machine stretches wall-clock time but not the CPU a link costs.
 *
 * Best run against a private server of its own (TEST_ADMIN_DATABASE_URL, say postgres://postgres@127.0.0.1:55433
 * with shared_preload_libraries = 'pg_stat_statements'): the WAL position and the statements are then the run's alone.
 */
import { join } from 'node:path';
import { Client } from 'pg';
import { CpuMeter, postgresBackends, withChildren } from './lib/cpu';
import { Fixtures } from './lib/fixtures';
import { OtlpSink } from './lib/otlp-sink';
import { stopProcess, waitUntilReady, type BenchProcess } from './lib/processes';
import { int } from './lib/settings';
import { BENCH_OVERRIDES, createMigratedDatabase, readyzUrl, ROOT, serviceEnvironment, spawnService, type ServiceName } from './lib/system';
import { ADMIN_DATABASE_URL, freePort, uniqueNamespace } from '@pl/testing';

interface StatementRow {
  query: string;
  calls: string;
  rows: string;
  total_exec_time: number;
  wal_bytes: string;
}

async function main(): Promise<void> {
  const n = int('BENCH_DUE_LINKS', 20_000, 1, 10_000_000);
  const kafkaBrokers = process.env.KAFKA_BROKERS;
  if (!kafkaBrokers) throw new Error('KAFKA_BROKERS is not set: eval "$(bash scripts/local-deps.sh)" first');
  const logDir = join(ROOT, '.local', 'expiry-profile');
  const sink = await OtlpSink.start();
  const database = await createMigratedDatabase('expprof');
  const processes: BenchProcess[] = [];
  const admin = new Client({ connectionString: database.url });
  // pg_stat_statements is read where the extension was created: the server's maintenance database.
  const server = new Client({ connectionString: ADMIN_DATABASE_URL });
  let fixtures: Fixtures | undefined;
  try {
    const env: Record<string, string> = {
      ...serviceEnvironment({ databaseUrl: database.url, kafkaBrokers, namespace: uniqueNamespace('expprof'), publicBaseUrl: 'http://127.0.0.1:1' }),
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      ...BENCH_OVERRIDES,
      // Only when the sweep starts after the links fall due: the cost of a link does not depend on it.
      EXPIRY_SWEEP_INTERVAL_MS: '200',
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
    };
    const services = {} as Record<ServiceName, BenchProcess>;
    for (const name of ['shops', 'links', 'notifier'] as const) {
      const opsPort = await freePort();
      // BENCH_CPU_PROFILE=1: each service writes a V8 CPU profile when it stops (open it in Chrome DevTools).
      const nodeArgs = process.env.BENCH_CPU_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${join(logDir, 'profiles', name)}`] : [];
      const p = spawnService(name, name, { ...env, OPS_PORT: String(opsPort) }, logDir, { nodeArgs });
      processes.push(p);
      services[name] = p;
      await waitUntilReady(p, readyzUrl(opsPort));
    }
    await admin.connect();
    await server.connect();
    const sql = async <T extends object>(text: string, params: unknown[] = []): Promise<T[]> => (await admin.query<T & object>(text, params)).rows;
    fixtures = new Fixtures(database.url, env.WEBHOOK_SECRET_KEY ?? '');
    const owner = await fixtures.merchant();
    const shopId = await fixtures.shop(owner.id);
    const dueAt = new Date(Date.now() + 10_000 + Math.ceil(n / 10_000) * 1000);
    for (let done = 0; done < n; done += 20_000) await fixtures.seedDue(owner.id, shopId, Math.min(20_000, n - done), dueAt);
    await fixtures.settleAfterBulkLoad();
    const onServer = async <T extends object>(text: string, params: unknown[] = []): Promise<T[]> =>
      (await server.query<T & object>(text, params)).rows;
    const statements = (await onServer<{ ok: boolean }>(`SELECT to_regclass('pg_stat_statements') IS NOT NULL AS ok`))[0]?.ok === true;
    while (Date.now() < dueAt.getTime() - 500) await new Promise((r) => setTimeout(r, 100));

    // The harness's own polling is not the sweep's: its backend is left out.
    const ownPid = Number((await sql<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]?.pid);
    const postmaster = Number(process.env.BENCH_PG_POSTMASTER_PID ?? 0);
    const meter = new CpuMeter([
      { name: 'links', pids: () => [services.links.pid] },
      { name: 'notifier', pids: () => [services.notifier.pid] },
      { name: 'pg (database backends)', pids: () => postgresBackends(database.name).filter((pid) => pid !== ownPid) },
      ...(postmaster > 0 ? [{ name: 'pg (server, other)', pids: () => withChildren(postmaster) }] : []),
    ]);
    if (statements) await onServer('SELECT pg_stat_statements_reset()');
    const [wal0] = await sql<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    meter.start();
    const started = Date.now();
    const count = async (text: string): Promise<number> => Number((await sql<{ n: string }>(text, [owner.id]))[0]?.n ?? 0);
    let sweptAt: number | null = null;
    for (;;) {
      if (sweptAt === null && (await count(`SELECT count(*) AS n FROM links.payment_links WHERE merchant_id = $1 AND status = 'pending'`)) === 0) {
        sweptAt = Date.now();
      }
      const taken =
        sweptAt !== null &&
        (await count(`SELECT count(*) AS n FROM links.outbox_pending WHERE $1::uuid IS NOT NULL`)) === 0 &&
        (await count(`SELECT count(*) AS n FROM notifier.inbox_events WHERE merchant_id = $1 AND type = 'payment_link.expired'`)) >= n;
      if (taken) break;
      if (Date.now() - started > 300_000) throw new Error('not done in 5 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
    const window = meter.stop();
    const [wal1] = await sql<{ bytes: string }>('SELECT pg_current_wal_lsn() - $1::pg_lsn AS bytes', [wal0?.lsn]);
    const [events] = await sql<{ wrong: string; links: string }>(
      `SELECT count(*) AS links, count(*) FILTER (WHERE COALESCE(e.n, 0) <> 1) AS wrong
         FROM links.payment_links l
         LEFT JOIN (SELECT message_key, count(*) AS n FROM links.outbox WHERE payload->>'event' = 'payment_link.expired' GROUP BY message_key) e
           ON e.message_key = l.id::text
        WHERE l.merchant_id = $1`,
      [owner.id],
    );
    const perLink = (pct: number): string => ((((pct / 100) * window.seconds * 1000) / n) * 1000).toFixed(0);
    console.log(
      `expiry profile: ${n.toLocaleString('en')} links; swept in ${((sweptAt! - started) / 1000).toFixed(1)} s, all taken in by the notifier in ${window.seconds.toFixed(1)} s`,
    );
    console.log(
      `  load average at the end: ${(await import('node:os'))
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(`  links without exactly one payment_link.expired: ${events?.wrong} of ${events?.links}`);
    console.log('  CPU per expired link (µs; utime + stime over the window):');
    for (const [name, pct] of Object.entries(window.usage)) console.log(`    ${name.padEnd(24)} ${perLink(pct).padStart(6)}`);
    console.log(`  WAL per link: ${(Number(wal1?.bytes ?? 0) / n).toFixed(0)} B (the whole server's WAL: exact on a private server)`);
    if (statements) {
      const rows = await onServer<StatementRow>(
        `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls, rows, total_exec_time, wal_bytes
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
          ORDER BY total_exec_time DESC LIMIT 14`,
        [database.name],
      );
      console.log('  statements (pg_stat_statements), by total time:');
      for (const r of rows) {
        console.log(
          `    ${r.total_exec_time.toFixed(0).padStart(7)} ms ${r.calls.padStart(7)} calls ${r.rows.padStart(8)} rows ` +
            `${(Number(r.wal_bytes) / n).toFixed(0).padStart(6)} B WAL/link  ${r.query.slice(0, 150)}`,
        );
      }
    }
  } finally {
    await admin.end().catch(() => undefined);
    await server.end().catch(() => undefined);
    await fixtures?.close();
    for (const p of processes.reverse()) await stopProcess(p, 10_000);
    await database.drop().catch(() => undefined);
    await sink.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
