import { readdirSync, readFileSync } from 'node:fs';
import { CpuMeter, postgresBackends, withChildren, type CpuGroup, type CpuWindow } from './cpu';
import { PgActivity, topActivities } from './pg-activity';
import type { Fixtures, BenchMerchant } from './fixtures';
import { startLoad } from './load';
import type { ClosedLoopResult, ClosedLoopSpec, RequestTemplate } from './load-spec';
import { summarize, type LatencySummary } from './stats';
import type { OtlpSink } from './otlp-sink';
import type { Compared, Row, TargetCheck } from './report';
import type { Settings } from './settings';
import type { BenchSystem } from './system';

/** What every scenario works with, and where it puts its figures. */
export interface BenchContext {
  sys: BenchSystem;
  fixtures: Fixtures;
  sink: OtlpSink;
  settings: Settings;
  workDir: string;
  rows: Row[];
  checks: TargetCheck[];
  /** Raw figures for last.json, by scenario. */
  details: Record<string, unknown>;
  /** The merchant whose links are read (get, list): a fixed history, seeded. */
  reader: { merchant: BenchMerchant; shopId: number };
  /** The merchant that creates and cancels. */
  writer: { merchant: BenchMerchant; shopId: number };
  log(line: string): void;
}

/** Processes of shared servers, by command name (other people's tests use them too). */
function pidsNamed(comm: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

function cpuGroups(ctx: BenchContext, loadPid?: number): CpuGroup[] {
  const { sys } = ctx;
  const groups: CpuGroup[] = [
    { name: 'gateway', pids: () => [sys.services.gateway.pid, ...sys.gatewayReplicas.map((p) => p.pid)] },
    { name: 'links', pids: () => [sys.services.links.pid] },
    { name: 'shops', pids: () => [sys.services.shops.pid] },
    { name: 'notifier', pids: () => [sys.services.notifier.pid] },
    { name: 'reference', pids: () => [sys.reference.pid] },
    // The cluster's primary and its workers, whichever are alive at each sample.
    { name: 'reference-cluster', pids: () => withChildren(sys.referenceCluster.pid) },
    { name: 'postgres', pids: () => postgresBackends(sys.database.name) },
    { name: 'redis', pids: () => pidsNamed('redis-server') },
    { name: 'nats', pids: () => pidsNamed('nats-server') },
    { name: 'bench', pids: () => [process.pid] },
  ];
  if (sys.kafkaMock) {
    const pid = sys.kafkaMock.pid;
    groups.push({ name: 'kafka', pids: () => [pid] });
  }
  if (loadPid !== undefined) groups.push({ name: 'load', pids: () => [loadPid] });
  return groups;
}

/** CPU per process and Postgres activity over a measured window. */
export async function observe(
  ctx: BenchContext,
  loadPid?: number,
): Promise<{ stop(): Promise<{ cpu: CpuWindow; pg: string[]; pgCounts: Record<string, number> }> }> {
  const meter = new CpuMeter(cpuGroups(ctx, loadPid));
  const activity = new PgActivity(ctx.sys.database.url, ctx.sys.database.name);
  await activity.start();
  meter.start();
  return {
    async stop() {
      const cpu = meter.stop();
      const pgCounts = await activity.stop();
      return { cpu, pg: topActivities([pgCounts]), pgCounts };
    },
  };
}

export const apiRequest = (method: 'GET' | 'POST', path: string, merchant: BenchMerchant, extra: Partial<RequestTemplate> = {}): RequestTemplate => ({
  method,
  path,
  headers: { ...merchant.headers, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
  ...extra,
});

interface ClosedRun {
  result: ClosedLoopResult;
  cpu: CpuWindow;
  pg: string[];
  pgCounts: Record<string, number>;
  spans: number;
  /** Wall ms when the measured part began. */
  startedAt: number;
}

/** One closed-loop run (warm-up, then the measured part) with the CPU of every process and Postgres' activity over the measured part. */
async function runClosed(
  ctx: BenchContext,
  url: string,
  request: RequestTemplate,
  o: {
    warmupSeconds: number;
    seconds: number;
    timeline?: boolean;
    stoppable?: boolean;
    raw?: boolean;
    keyed?: boolean;
    duringMeasure?: (stop: () => void) => Promise<void>;
  },
): Promise<ClosedRun> {
  const spec: ClosedLoopSpec = {
    mode: 'closed',
    url,
    connections: ctx.settings.connections,
    warmupSeconds: o.warmupSeconds,
    seconds: o.seconds,
    request,
    ...(o.timeline ? { timeline: true } : {}),
    ...(o.stoppable ? { stoppable: true } : {}),
    ...(o.raw ? { raw: true } : {}),
    ...(o.keyed ? { keyed: true } : {}),
  };
  const load = startLoad(spec, ctx.workDir);
  await load.measuring;
  const startedAt = performance.timeOrigin + performance.now();
  const watch = await observe(ctx, load.pid);
  const spansBefore = ctx.sink.total();
  let result: ClosedLoopResult;
  try {
    if (o.duringMeasure) await o.duringMeasure(() => load.stop());
    result = await load.result;
  } catch (e) {
    // The next scenario must not run beside this one's load and samplers.
    load.stop();
    await watch.stop();
    throw e;
  }
  const { cpu, pg, pgCounts } = await watch.stop();
  return { result, cpu, pg, pgCounts, spans: ctx.sink.total() - spansBefore, startedAt };
}

/** The processes that serve each target's requests (never the load generator or the bench itself). */
const SERVING: Record<Row['target'], string[]> = {
  reference: ['reference', 'postgres'],
  'reference-cluster': ['reference-cluster', 'postgres'],
  gateway: ['gateway', 'links', 'shops', 'notifier', 'postgres', 'redis', 'nats', 'kafka'],
  system: ['gateway', 'links', 'shops', 'notifier', 'postgres', 'redis', 'nats', 'kafka'],
};

/**
 * CPU milliseconds the serving processes spent per 2xx response: less sensitive than req/s to what else
 * this shared machine runs. Redis and NATS are shared servers, so theirs includes other people's work.
 */
export const cpuMsPerRequest = (cpu: CpuWindow, rps: number, target: Row['target']): number | null =>
  rps > 0 ? Math.round((SERVING[target].reduce((a, k) => a + (cpu.usage[k] ?? 0), 0) / 100 / rps) * 1000 * 100) / 100 : null;

function logRun(
  ctx: BenchContext,
  r: {
    rps: number;
    latency: LatencySummary;
    errors: number;
    statusCodes: Record<string, number>;
    socketErrors: number;
    wrapped: boolean;
    spans: number;
    pg: string[];
  },
): void {
  const codes = Object.entries(r.statusCodes)
    .map(([c, n]) => `${c}×${n}`)
    .join(' ');
  ctx.log(
    `    ${r.rps} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms, ` +
      `errors ${r.errors} (${codes}${r.socketErrors ? `, socket ${r.socketErrors}` : ''})${r.wrapped ? ' — pool ran dry' : ''}, spans exported ~${r.spans}`,
  );
  ctx.log(`    postgres: ${r.pg.slice(0, 3).join(' | ') || 'no statement in flight when sampled'}`);
}

/** One closed-loop run of one target, as one row. */
export async function measureClosed(
  ctx: BenchContext,
  scenario: string,
  target: Row['target'],
  url: string,
  request: RequestTemplate,
  options: {
    seconds?: number;
    timeline?: boolean;
    stoppable?: boolean;
    keyed?: boolean;
    note?: string;
    duringMeasure?: (stop: () => void) => Promise<void>;
  } = {},
): Promise<{ row: Row; result: ClosedLoopResult; cpu: CpuWindow; startedAt: number }> {
  const seconds = options.seconds ?? ctx.settings.seconds;
  ctx.log(
    `  ${scenario} → ${target}: ${ctx.settings.warmupSeconds} s warm-up, ${options.stoppable ? 'up to ' : ''}${seconds} s measured, ${ctx.settings.connections} connections`,
  );
  const run = await runClosed(ctx, url, request, { ...options, warmupSeconds: ctx.settings.warmupSeconds, seconds });
  const { result, cpu } = run;
  const errors = result.non2xx + result.errors;
  const row: Row = {
    scenario,
    target,
    rps: result.rps,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
    cpu,
    cpuMsPerRequest: cpuMsPerRequest(cpu, result.rps, target),
    ...(options.note ? { note: options.note } : {}),
  };
  logRun(ctx, { ...result, errors, socketErrors: result.errors, wrapped: result.wrapped === true, spans: run.spans, pg: run.pg });
  ctx.details[`${scenario} / ${target}`] = { ...result, timeline: undefined, keyed: undefined, cpu, spans: run.spans, postgresActivity: run.pg };
  return { row, result, cpu, startedAt: run.startedAt };
}

/** The sides of a comparison: the reference as one process, the reference on every core, the platform. */
export type Side = 'reference' | 'reference-cluster' | 'gateway';
const SIDES: readonly Side[] = ['reference', 'reference-cluster', 'gateway'];
/** The rows of one comparison. */
export interface Comparison {
  gateway: Row;
  reference: Row;
  referenceCluster: Row;
}

const comparedWith = (row: Row): Compared => ({ rps: row.rps, p99: row.p99, cpuMsPerRequest: row.cpuMsPerRequest ?? null });

/**
 * The gateway and both references on one scenario, in slices whose order rotates each round (reference,
 * reference-cluster, gateway; then reference-cluster, gateway, reference; …), so that every side meets the
 * same background load of this shared machine; each side's slices are merged (responses, latencies, CPU).
 * The gateway's row carries its ratios to each reference.
 */
export async function measureAgainstReferences(
  ctx: BenchContext,
  scenario: string,
  request: (target: Side, offset: number) => RequestTemplate,
  note?: string,
): Promise<Comparison> {
  const { settings } = ctx;
  const rounds = settings.rounds;
  const slice = Math.max(1, Math.round(settings.seconds / rounds));
  ctx.log(
    `  ${scenario}: ${rounds} × ${slice} s per side, order rotating each round (first slice after ${settings.warmupSeconds} s warm-up, later ones after 1 s), ${settings.connections} connections`,
  );
  interface SideRuns {
    runs: ClosedRun[];
    offset: number;
  }
  const sides: Record<Side, SideRuns> = {
    reference: { runs: [], offset: 0 },
    'reference-cluster': { runs: [], offset: 0 },
    gateway: { runs: [], offset: 0 },
  };
  const urls: Record<Side, string> = {
    reference: ctx.sys.referenceUrl,
    'reference-cluster': ctx.sys.referenceClusterUrl,
    gateway: ctx.sys.gatewayUrl,
  };
  for (let r = 0; r < rounds; r++) {
    const order = [...SIDES.slice(r % SIDES.length), ...SIDES.slice(0, r % SIDES.length)];
    for (const target of order) {
      const side = sides[target];
      const run = await runClosed(ctx, urls[target], request(target, side.offset), {
        warmupSeconds: side.runs.length === 0 ? settings.warmupSeconds : 1,
        seconds: slice,
        raw: true,
      });
      side.offset += run.result.picked;
      side.runs.push(run);
    }
  }
  const rows = {} as Record<Side, Row>;
  // The references first: the gateway's row quotes them.
  for (const target of SIDES) {
    const runs = sides[target].runs;
    const seconds = runs.reduce((a, r) => a + r.result.seconds, 0);
    const ok = runs.reduce((a, r) => a + r.result.ok, 0);
    const socketErrors = runs.reduce((a, r) => a + r.result.errors, 0);
    const errors = runs.reduce((a, r) => a + r.result.non2xx, 0) + socketErrors;
    const statusCodes: Record<string, number> = {};
    for (const r of runs) for (const [c, n] of Object.entries(r.result.statusCodes)) statusCodes[c] = (statusCodes[c] ?? 0) + n;
    const latency = summarize(runs.flatMap((r) => r.result.latencies ?? []));
    // Each slice's CPU shares weighted by its length.
    const cpuSeconds = runs.reduce((a, r) => a + r.cpu.seconds, 0);
    const weighted = (f: (c: CpuWindow) => number): number => runs.reduce((a, r) => a + f(r.cpu) * r.cpu.seconds, 0) / Math.max(1e-9, cpuSeconds);
    const usage: Record<string, number> = {};
    for (const k of new Set(runs.flatMap((r) => Object.keys(r.cpu.usage)))) usage[k] = weighted((c) => c.usage[k] ?? 0);
    const cpu: CpuWindow = { usage, machine: weighted((c) => c.machine), outside: weighted((c) => c.outside), seconds: cpuSeconds };
    const rps = Math.round((ok / seconds) * 10) / 10;
    const pg = topActivities(runs.map((r) => r.pgCounts));
    ctx.log(`  ${scenario} → ${target}:`);
    logRun(ctx, {
      rps,
      latency,
      errors,
      statusCodes,
      socketErrors,
      wrapped: runs.some((r) => r.result.wrapped),
      spans: runs.reduce((a, r) => a + r.spans, 0),
      pg,
    });
    rows[target] = {
      scenario,
      target,
      rps,
      p50: latency.p50,
      p99: latency.p99,
      errors,
      cpu,
      cpuMsPerRequest: cpuMsPerRequest(cpu, rps, target),
      ...(target === 'gateway' ? { reference: comparedWith(rows.reference), referenceCluster: comparedWith(rows['reference-cluster']) } : {}),
      ...(note ? { note } : {}),
    };
    ctx.details[`${scenario} / ${target}`] = {
      rps,
      latency,
      errors,
      statusCodes,
      slices: runs.map((r) => ({ rps: r.result.rps, p99: r.result.latency.p99, others: r.cpu.outside })),
      cpu,
      postgresActivity: pg,
    };
  }
  ctx.rows.push(rows.reference, rows['reference-cluster'], rows.gateway);
  return { gateway: rows.gateway, reference: rows.reference, referenceCluster: rows['reference-cluster'] };
}

export const check = (ctx: BenchContext, target: string, measured: string, pass: boolean | null): void => {
  ctx.checks.push({ target, measured, pass });
};
