/**
 * `npm run bench [-- scenario ...]`: the platform's throughput and latency against a plain express + pg
 * reference measured in the same run, as one process and on every core (node:cluster), at scale, on the payment path, in the expiry sweep and in the
 * notifier. Method and figures: docs/benchmarks.md. Not part of `npm test`.
 *
 * The services run as real processes from dist/ (production code paths, NODE_ENV=test, tracing exported to a sink in this
 * process), one of each, on a fresh database; the load comes from a process of its own (autocannon).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import type { BenchContext } from './lib/context';
import { Fixtures } from './lib/fixtures';
import { runBench, type Lifecycle } from './lib/lifecycle';
import { resultsTable, targetsTable } from './lib/report';
import { cancelScenario, createScenario, getScenario, listScenario } from './lib/scenarios/links-api';
import { expiryScenario } from './lib/scenarios/expiry';
import { notifierScenario } from './lib/scenarios/notifier';
import { paymentScenario } from './lib/scenarios/payment';
import { paymentCapacityScenario } from './lib/scenarios/payment-capacity';
import { payoutBatchScenario } from './lib/scenarios/payout-batch';
import { providersScenario } from './lib/scenarios/providers';
import { payoutsScenario } from './lib/scenarios/payouts';
import { signInScenario } from './lib/scenarios/sign-in';
import { deepPosition, HISTORY, scaleScenario } from './lib/scenarios/scale';
import { parseArgs, USAGE, type ScenarioName } from './lib/settings';
import { BENCH_OVERRIDES, gatewayReplicaCount, ROOT, startBench } from './lib/system';

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

function machine(): Record<string, string | number> {
  const lscpu = (() => {
    try {
      return /^Model name:\s*(.+)$/m.exec(execFileSync('lscpu', { encoding: 'utf8' }))?.[1]?.trim() ?? '';
    } catch {
      return '';
    }
  })();
  return {
    nproc: Number(execFileSync('nproc', { encoding: 'utf8' }).trim()),
    cpu: lscpu || (cpus()[0]?.model ?? 'unknown'),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    loadavgAtStart: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

async function main(life: Lifecycle): Promise<number> {
  const parsed = parseArgs(process.argv.slice(2));
  if (parsed === 'help') {
    out(USAGE);
    return 0;
  }
  const { scenarios, settings } = parsed;
  const has = (s: ScenarioName): boolean => scenarios.includes(s);
  const workDir = join(ROOT, '.local', 'bench');
  mkdirSync(workDir, { recursive: true });
  const host = machine();
  const startedAt = new Date();
  out(`bench: ${scenarios.join(', ')} on ${host.nproc} × ${host.cpu}, ${host.memoryGiB} GiB, load average ${host.loadavgAtStart}`);
  out(`bench: settings ${JSON.stringify(settings)}; logs in .local/bench/logs`);

  const { sys, sink, fakes } = await startBench(life, join(workDir, 'logs'), { providerFakes: has('providers') });
  const postgres = execFileSync('psql', [sys.database.url, '-tAc', 'SHOW server_version'], { encoding: 'utf8' }).trim();
  out(`bench: system up (database ${sys.database.name}, Postgres ${postgres}, Kafka ${sys.kafkaMock ? 'mock of its own' : sys.kafkaBrokers})`);
  const fixtures = new Fixtures(sys.database.url, sys.env.WEBHOOK_SECRET_KEY!);
  life.defer(() => fixtures.close());
  const writerMerchant = await fixtures.merchant();
  const readerMerchant = await fixtures.merchant();
  const ctx: BenchContext = {
    sys,
    fixtures,
    sink,
    settings,
    workDir,
    rows: [],
    checks: [],
    details: {},
    writer: { merchant: writerMerchant, shopId: await fixtures.shop(writerMerchant.id) },
    reader: { merchant: readerMerchant, shopId: await fixtures.shop(readerMerchant.id) },
    log: out,
  };
  // The reader's history ends two hours ago, so none of it is due for expiry while the bench runs.
  const newest = new Date(Date.now() - 2 * 3600_000);
  await fixtures.seedHistory({ merchantId: readerMerchant.id, shopId: ctx.reader.shopId, from: 0, count: settings.smallLinks, newest, ...HISTORY });
  await fixtures.analyze();

  const failures: string[] = [];
  const attempt = async (name: string, fn: () => Promise<void>): Promise<void> => {
    if (life.interrupted) return;
    try {
      await fn();
    } catch (e) {
      failures.push(`${name}: ${e instanceof Error ? e.message : String(e)}`);
      out(`bench: ${name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    }
    const dead = Object.values(sys.services).filter((p) => p.isDead());
    if (dead.length > 0) throw new Error(`${dead.map((p) => p.name).join(', ')} died during ${name} (logs in .local/bench/logs)`);
  };

  const smallLabel = `(${settings.smallLinks.toLocaleString('en')} links)`;
  let small: Awaited<ReturnType<typeof listScenario>> | undefined;
  if (has('create'))
    await attempt('create', async () => {
      await createScenario(ctx);
    });
  if (has('get')) {
    await attempt('get', async () => {
      ctx.log('get (route 6)');
      await getScenario(ctx, smallLabel, await fixtures.sampleIds(readerMerchant.id, settings.smallLinks));
    });
  }
  if (has('list') || has('scale')) {
    await attempt('list', async () => {
      ctx.log('list (route 7)');
      small = await listScenario(ctx, smallLabel, await fixtures.cursorAt(readerMerchant.id, deepPosition(settings.smallLinks)));
    });
  }
  if (has('cancel')) await attempt('cancel', () => cancelScenario(ctx));
  if (has('payment')) await attempt('payment', () => paymentScenario(ctx));
  if (has('payment-capacity')) await attempt('payment-capacity', () => paymentCapacityScenario(ctx));
  if (has('providers') && fakes) await attempt('providers', () => providersScenario(ctx, fakes));
  if (has('sign-in')) await attempt('sign-in', () => signInScenario(ctx));
  // The batch gathers every approved live bank payout: it goes before the payouts scenario leaves thousands of its own.
  if (has('payout-batch')) await attempt('payout-batch', () => payoutBatchScenario(ctx));
  if (has('payouts')) await attempt('payouts', () => payoutsScenario(ctx));
  if (has('scale') && small) {
    const measuredSmall = small;
    await attempt('scale', () => scaleScenario(ctx, measuredSmall, newest));
  }
  if (has('expiry')) await attempt('expiry', () => expiryScenario(ctx));
  if (has('notifier')) await attempt('notifier', () => notifierScenario(ctx));

  if (life.interrupted) return 130;
  const finishedAt = new Date();
  const results = resultsTable(ctx.rows);
  const targets = targetsTable(ctx.checks);
  const preamble = [
    `Run ${startedAt.toISOString()} – ${finishedAt.toISOString()} on ${host.nproc} × ${host.cpu}, ${host.memoryGiB} GiB; ` +
      `load average ${host.loadavgAtStart} at the start, ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} at the end (a shared machine: see "others" in the CPU column).`,
    `Settings: ${settings.seconds} s measured after ${settings.warmupSeconds} s warm-up per run, ${settings.connections} connections; ` +
      `services from dist/ with production code paths (gateway replicas: ${gatewayReplicaCount()}), NODE_ENV=test, tracing on; overrides ${Object.entries(
        BENCH_OVERRIDES,
      )
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}.`,
    `Spans exported: ${Object.entries(sink.snapshot())
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
  ];
  out();
  for (const line of preamble) out(line);
  out();
  out(results);
  out();
  out(targets);
  if (failures.length > 0) {
    out();
    out(`Scenarios that failed: ${failures.join('; ')}`);
  }
  const report = {
    startedAt,
    finishedAt,
    machine: { ...host, postgres },
    settings,
    overrides: BENCH_OVERRIDES,
    scenarios,
    rows: ctx.rows,
    checks: ctx.checks,
    details: ctx.details,
    spans: sink.snapshot(),
    failures,
  };
  writeFileSync(join(workDir, 'last.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(workDir, 'last.md'), `${preamble.join('\n\n')}\n\n${results}\n\n${targets}\n`);
  out();
  out('bench: results written to .local/bench/last.json and .local/bench/last.md');
  return failures.length > 0 ? 1 : 0;
}

runBench('bench', main);
