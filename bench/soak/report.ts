import type { StateCheck } from './checks';
import type { Cluster, ProcessLife } from './cluster';
import { percentile } from '../lib/stats';
import { scanLog } from './log-scan';
import type { ConnectionFigures } from './pg-connections';
import { memoryTrend, type MemoryTrend } from './memory';
import { EXPECTED_STATUS, isExpected, REQUEST_KINDS, type Recorder, type Sample } from './recorder';
import type { RestartRecord } from './restarts';
import type { SoakSettings } from './settings';
import { fmtMiB, fmtMs, fmtS, table } from './table';
import type { WebhookSink } from './webhook-sink';

export interface SoakResult {
  settings: SoakSettings;
  recorder: Recorder;
  restarts: RestartRecord[];
  cluster: Cluster;
  sink: WebhookSink;
  paidAt: ReadonlyMap<string, number>;
  substituted: number;
  states: StateCheck;
  webhookWaitMs: number;
  machine: { cpus: number; loadStart: number; loadEnd: number; postgres: ConnectionFigures };
  logDir: string;
  /** Things that went wrong in the soak's own machinery (a restart that never became ready). */
  problems: string[];
}

const SLOW_WEBHOOK_MS = 1000;
const REBALANCE_WINDOW_MS = 15_000;
const NETWORK_RESETS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);
/** Slack around a gateway's down time within which a refused or reset connection is its restart's doing. */
const RESTART_SLACK_MS = 1000;

/**
 * With the blind balancer, connections refused or reset by a gateway between its SIGTERM and its being
 * ready again are the expected cost of restarting without a drain; nothing else is expected.
 */
function isExpectedFailure(s: Sample, r: SoakResult): boolean {
  if (r.settings.balancer !== 'blind' || s.error === undefined || !NETWORK_RESETS.has(s.error)) return false;
  return r.restarts.some(
    (x) =>
      x.label === `gateway#${s.gateway + 1}` &&
      x.old.stop !== undefined &&
      s.at + s.ms >= x.old.stop.at - RESTART_SLACK_MS &&
      s.at <= (x.next.readyAt ?? Infinity) + RESTART_SLACK_MS,
  );
}

const outcomeOf = (s: Sample): string => (s.status !== undefined ? String(s.status) : (s.error ?? 'error'));

const countBy = (items: readonly string[]): string =>
  [...items.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>())]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}×${n}`)
    .join(', ');

function requestsSection(r: SoakResult): string {
  const rows: (string | number)[][] = [['request', 'sent', 'as expected', 'other outcomes', 'p50 ms', 'p99 ms', 'max ms']];
  for (const kind of REQUEST_KINDS) {
    const of = r.recorder.samples.filter((s) => s.kind === kind);
    if (of.length === 0) continue;
    const ms = of.map((s) => s.ms).sort((a, b) => a - b);
    const others = of.filter((s) => !isExpected(s)).map((s) => outcomeOf(s) + (isExpectedFailure(s, r) ? ' (restart)' : ''));
    rows.push([
      `${kind} (${EXPECTED_STATUS[kind]})`,
      of.length,
      of.length - others.length,
      countBy(others) || '-',
      fmtMs(percentile(ms, 50)),
      fmtMs(percentile(ms, 99)),
      fmtMs(ms[ms.length - 1] ?? NaN),
    ]);
  }
  const all = r.recorder.samples;
  const ms = all.map((s) => s.ms).sort((a, b) => a - b);
  rows.push([
    'all',
    all.length,
    all.filter(isExpected).length,
    countBy(all.filter((s) => !isExpected(s)).map(outcomeOf)) || '-',
    fmtMs(percentile(ms, 50)),
    fmtMs(percentile(ms, 99)),
    fmtMs(ms[ms.length - 1] ?? NaN),
  ]);
  const notes = [
    r.substituted ? `${r.substituted} cancels/pays/gets found no link and created one instead.` : '',
    r.recorder.shed ? `${r.recorder.shed} operations were shed: >2000 were in flight.` : '',
  ].filter(Boolean);
  // Examples only of outcomes that were not all the expected cost of a restart.
  const unexpectedKeys = new Set(
    r.recorder.samples.filter((s) => !isExpected(s) && !isExpectedFailure(s, r)).map((s) => `${s.kind} ${outcomeOf(s)}`),
  );
  const examples = [...r.recorder.examples].filter(([k]) => unexpectedKeys.has(k)).map(([k, v]) => `  ${k}:\n${v.map((e) => `    ${e}`).join('\n')}`);
  return [
    'Requests (latency from when each was due to its answer; expected status in brackets)',
    table(rows),
    ...notes,
    ...(examples.length ? ['Examples of other outcomes:', ...examples] : []),
  ].join('\n');
}

function timelineSection(r: SoakResult): string {
  const w = r.settings.windowSeconds * 1000;
  const rows: (string | number)[][] = [['window s', 'requests', 'other', 'p50 ms', 'p99 ms', 'max ms', 'soak loop p99', 'load', 'events']];
  const windows = Math.ceil((r.settings.seconds * 1000) / w);
  for (let k = 0; k < windows; k++) {
    const from = k * w;
    const to = from + w;
    const of = r.recorder.samples.filter((s) => s.at >= from && s.at < to);
    const ms = of.map((s) => s.ms).sort((a, b) => a - b);
    const probe = r.recorder.probes.find((p) => p.end >= to - 500);
    const events = r.recorder.events.filter((e) => e.at >= from && e.at < to).map((e) => e.text.replace(/ \(pid \d+\)/, ''));
    rows.push([
      `${from / 1000}-${to / 1000}`,
      of.length,
      of.filter((s) => !isExpected(s)).length,
      fmtMs(percentile(ms, 50)),
      fmtMs(percentile(ms, 99)),
      fmtMs(ms[ms.length - 1] ?? NaN),
      probe ? `${fmtMs(probe.loopDelayP99Ms)} ms` : '-',
      probe ? probe.loadavg1.toFixed(1) : '-',
      events.join(', '),
    ]);
  }
  return [
    `Latency over time (${r.settings.windowSeconds} s windows, by when requests were due; "soak loop p99" is the generator's own event-loop delay, "load" the 1-min load average)`,
    table(rows),
  ].join('\n');
}

function restartsSection(r: SoakResult): string {
  if (r.restarts.length === 0) return 'Restarts: none';
  const rows: (string | number)[][] = [
    ['replica', 'SIGTERM at s', 'exit took s', 'exit code', 'down s (SIGTERM→ready)', 'RSS before MiB', 'new pid', 'RSS at ready MiB'],
  ];
  for (const x of r.restarts) {
    const stop = x.old.stop;
    rows.push([
      x.label,
      fmtS(stop?.at),
      fmtS(stop?.ms),
      `${stop?.code ?? '-'}${stop?.killed ? ' (SIGKILL)' : ''}`,
      fmtS(stop && x.next.readyAt !== undefined ? x.next.readyAt - stop.at : undefined),
      fmtMiB(stop?.rssMiB),
      x.next.pid,
      fmtMiB(x.next.rssAtReadyMiB),
    ]);
  }
  const drained =
    r.settings.balancer === 'drain'
      ? ` Gateways left the rotation ${r.settings.preStopMs} ms before their SIGTERM (the preStop pause).`
      : ' Gateways got SIGTERM while still in the rotation (SOAK_BALANCER=blind).';
  return [`Rolling restarts (one replica at a time; the next waits until the last is ready).${drained}`, table(rows)].join('\n');
}

/** A process's samples from the load's start (or its own readiness, if later) on. */
const observed = (life: ProcessLife): [number, number][] => life.samples.filter(([t]) => t >= 0);

function memoryTrends(r: SoakResult): { life: ProcessLife; trend: MemoryTrend }[] {
  return r.cluster.replicas.map((rep) => ({ life: rep.current, trend: memoryTrend(observed(rep.current)) }));
}

function memorySection(r: SoakResult, trends: ReturnType<typeof memoryTrends>): string {
  const rows: (string | number)[][] = [
    ['process', 'pid', 'since s', 'RSS at ready', 'first third', 'last third', 'at end', 'slope MiB/min', 'trend'],
  ];
  for (const { life, trend } of trends) {
    const samples = observed(life);
    rows.push([
      life.label,
      life.pid,
      fmtS(Math.max(0, life.readyAt ?? 0)),
      fmtMiB(life.rssAtReadyMiB),
      fmtMiB(trend.firstThirdMiB),
      fmtMiB(trend.lastThirdMiB),
      fmtMiB(samples[samples.length - 1]?.[1]),
      Number.isFinite(trend.slopeMiBPerMin) ? trend.slopeMiBPerMin.toFixed(2) : '-',
      trend.verdict,
    ]);
  }
  const first = r.cluster.replicas.map((rep) => rep.lives[0]).filter((l): l is ProcessLife => l !== undefined);
  const replaced = first.filter((l) => l.stop).map((l) => `${l.label} ${fmtMiB(l.rssAtReadyMiB)}→${fmtMiB(l.stop?.rssMiB)}`);
  return [
    'Memory (RSS MiB from /proc/<pid>/status, sampled every 2 s; each process alive at the end, compared over its own life since the load began or it was restarted: median of the first third against the last)',
    table(rows),
    ...(replaced.length ? [`Processes replaced by the restarts, RSS at ready → just before SIGTERM: ${replaced.join(', ')}`] : []),
  ].join('\n');
}

function logsSection(r: SoakResult): { text: string; errors: number } {
  const scans = r.cluster.replicas.map((rep) => ({ label: rep.label, scan: scanLog(r.cluster.logFile(rep)) }));
  const rows: (string | number)[][] = [['replica', 'warn', 'error', 'most frequent']];
  for (const { label, scan } of scans) {
    rows.push([
      label,
      scan.warn,
      scan.error,
      scan.messages
        .slice(0, 3)
        .map((m) => `${m.count}× ${m.msg}`)
        .join(' | ') || '-',
    ]);
  }
  return {
    text: ['Service logs (lines at warn and above, over every process of the replica)', table(rows)].join('\n'),
    errors: scans.reduce((a, s) => a + s.scan.error, 0),
  };
}

interface WebhookOutcome {
  paid: number;
  callbacksOk: number;
  received: number;
  uniqueIds: number;
  repeats: number;
  linksWithSeveralIds: number;
  missing: number;
  unexpected: number;
  badSignatures: number;
  extraDeliveries: number;
}

function webhookOutcome(r: SoakResult): WebhookOutcome {
  const received = r.sink.received;
  const ids = new Set(received.map((w) => w.webhookId));
  const idsByLink = new Map<string, Set<string | undefined>>();
  for (const w of received) if (w.linkId) idsByLink.set(w.linkId, (idsByLink.get(w.linkId) ?? new Set()).add(w.webhookId));
  const paid = new Set(r.states.paidIds);
  return {
    paid: paid.size,
    callbacksOk: r.paidAt.size,
    received: received.length,
    uniqueIds: ids.size,
    repeats: received.length - ids.size,
    linksWithSeveralIds: [...idsByLink.values()].filter((s) => s.size > 1).length,
    missing: [...paid].filter((id) => !idsByLink.has(id)).length,
    unexpected: [...idsByLink.keys()].filter((id) => !paid.has(id)).length,
    badSignatures: received.filter((w) => !w.signatureOk).length,
    extraDeliveries: [...r.states.deliveriesPerPaidLink.values()].filter((n) => n !== 1).length,
  };
}

function webhookSection(r: SoakResult, o: WebhookOutcome): string {
  const firstAt = new Map<string, number>();
  for (const w of r.sink.received) if (w.linkId && !firstAt.has(w.linkId)) firstAt.set(w.linkId, w.at);
  const pairs = [...r.paidAt].flatMap(([id, at]) => (firstAt.has(id) ? [[at, firstAt.get(id)! - at] as const] : []));
  const lat = pairs.map(([, ms]) => ms).sort((a, b) => a - b);
  // A notifier that leaves its consumer group stalls the group until it has rebalanced.
  const notifierStops = r.restarts.flatMap((x) => (x.label.startsWith('notifier') && x.old.stop ? [x.old.stop.at] : []));
  const slow = pairs.filter(([, ms]) => ms > SLOW_WEBHOOK_MS);
  const slowNearStop = slow.filter(([at, ms]) => notifierStops.some((t) => at + ms >= t && at <= t + REBALANCE_WINDOW_MS)).length;
  return [
    'Webhooks',
    `  links paid: ${o.paid} in the database (${o.callbacksOk} provider callbacks answered 200)`,
    `  webhooks received: ${o.received}, distinct webhook ids ${o.uniqueIds}, repeats of an id ${o.repeats} (at-least-once redeliveries), links with more than one webhook id ${o.linksWithSeveralIds}`,
    `  missing (paid, no webhook): ${o.missing}; for links not paid: ${o.unexpected}; bad signatures: ${o.badSignatures}`,
    `  notifier.deliveries: paid links without exactly one delivery row ${o.extraDeliveries}, rows not succeeded ${r.states.deliveriesNotSucceeded}`,
    `  callback answered → webhook received: p50 ${fmtMs(percentile(lat, 50))} ms, p99 ${fmtMs(percentile(lat, 99))} ms, max ${fmtMs(lat[lat.length - 1] ?? NaN)} ms; waited ${fmtS(r.webhookWaitMs)} s after the load for the last ones`,
    `  slower than ${SLOW_WEBHOOK_MS / 1000} s: ${slow.length}, of which ${slowNearStop} were waiting when a notifier left its consumer group (SIGTERM, up to ${REBALANCE_WINDOW_MS / 1000} s after)`,
  ].join('\n');
}

function statesSection(r: SoakResult): string {
  const s = r.states;
  const by = Object.entries(s.byStatus)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const examples = s.mismatches.slice(0, 5).map((m) => `    ${m.id}: expected ${m.expected}, is ${m.actual}`);
  return [
    `Link states (database against the answers the soak got): ${by}`,
    `  mismatches ${s.mismatches.length}; links the soak cannot judge (an answer was lost) ${s.uncertain}`,
    ...examples,
  ].join('\n');
}

export function renderReport(r: SoakResult): { text: string; failed: boolean } {
  const trends = memoryTrends(r);
  const logs = logsSection(r);
  const hooks = webhookOutcome(r);
  const third = (k: number) =>
    r.recorder.samples
      .filter((s) => s.at >= (k * r.settings.seconds * 1000) / 3 && s.at < ((k + 1) * r.settings.seconds * 1000) / 3)
      .map((s) => s.ms)
      .sort((a, b) => a - b);
  const p99First = percentile(third(0), 99);
  const p99Last = percentile(third(2), 99);
  const p99Grows = p99Last > 2 * p99First && p99Last - p99First > 100;
  const unexpected = r.recorder.samples.filter((s) => !isExpected(s) && !isExpectedFailure(s, r));
  const expectedFailures = r.recorder.samples.filter((s) => isExpectedFailure(s, r)).length;
  const crashed = r.cluster.crashed();
  const grows = trends.filter((t) => t.trend.verdict === 'grows').map((t) => t.life.label);
  const short = trends.filter((t) => t.trend.verdict === 'too short').length;
  const hookProblems = hooks.missing + hooks.unexpected + hooks.badSignatures + hooks.linksWithSeveralIds + hooks.extraDeliveries;
  const failed =
    unexpected.length > 0 ||
    crashed.length > 0 ||
    grows.length > 0 ||
    hookProblems > 0 ||
    r.states.mismatches.length > 0 ||
    r.recorder.shed > 0 ||
    r.problems.length > 0;
  const verdict = [
    `errors: ${unexpected.length} unexpected${unexpected.length ? ` (${countBy(unexpected.map((s) => `${s.kind} ${outcomeOf(s)}`))})` : ''}${expectedFailures ? `, ${expectedFailures} expected (connections to a gateway restarting without a drain)` : ''}`,
    `p99 ${fmtMs(p99First)} ms in the first third, ${fmtMs(p99Last)} ms in the last${p99Grows ? ' (GROWS: read it beside the load column)' : ''}`,
    `memory: ${grows.length ? `GROWS in ${grows.join(', ')}` : 'no growth'} (${trends.length - short}/${trends.length} processes lived long enough to judge)`,
    `webhooks: ${hooks.missing} missing, ${hooks.linksWithSeveralIds} links with two webhook ids, ${hooks.repeats} repeats`,
    `states: ${r.states.mismatches.length} mismatched`,
    `crashes: ${crashed.length ? crashed.map((l) => l.label).join(', ') : 'none'}`,
    `service log error lines: ${logs.errors}`,
    ...r.problems,
  ];
  const s = r.settings;
  const header = [
    `Soak: ${s.rate} operations/s for ${s.seconds} s (mix ${Object.entries(s.mix)
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}), ` +
      `two replicas of each service from dist/ (production code paths), ${s.merchants} merchants, balancer ${s.balancer}${s.restarts ? '' : ', no restarts'}` +
      (Object.keys(s.serviceEnv).length
        ? `; service settings ${Object.entries(s.serviceEnv)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`
        : ''),
    `Machine: ${r.machine.cpus} CPUs, 1-min load average ${r.machine.loadStart.toFixed(1)} at the start and ${r.machine.loadEnd.toFixed(1)} at the end (shared: other work on it counts in every figure)`,
    `Postgres: the services held at most ${r.machine.postgres.peakOurs} connections (DATABASE_POOL_MAX=${r.settings.dbPoolMax} per process), ` +
      `${r.machine.postgres.totalAtPeak} of max_connections ${r.machine.postgres.maxConnections} were in use on the server at that moment`,
    `Logs: ${r.logDir}`,
  ];
  const text = [
    header.join('\n'),
    requestsSection(r),
    timelineSection(r),
    restartsSection(r),
    memorySection(r, trends),
    webhookSection(r, hooks),
    logs.text,
    statesSection(r),
    `VERDICT: ${failed ? 'FAIL' : 'PASS'}: ${verdict.join('; ')}`,
  ].join('\n\n');
  return { text, failed };
}
