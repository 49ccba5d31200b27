import type { CpuWindow } from './cpu';

/** One line of the results table. */
export interface Row {
  scenario: string;
  /** What served it: the platform through the gateway, the reference as one process or on every core, or the platform end to end. */
  target: 'gateway' | 'reference' | 'reference-cluster' | 'system';
  rps: number | null;
  p50: number | null;
  p99: number | null;
  errors: number | null;
  cpu: CpuWindow | null;
  /** CPU ms the serving processes (services or reference, Postgres, Redis, NATS, Kafka) spent per 2xx response. */
  cpuMsPerRequest?: number | null;
  /** The same figures of the reference row this one is compared with (the single-process reference, or another baseline). */
  reference?: Compared;
  /** The same figures of the every-core reference's row. */
  referenceCluster?: Compared;
  note?: string;
}

/** The figures of a row another one is compared with. */
export interface Compared {
  rps: number | null;
  p99: number | null;
  cpuMsPerRequest?: number | null;
}

export interface TargetCheck {
  target: string;
  measured: string;
  pass: boolean | null;
}

/** Short names, so the CPU column stays one line. */
const CPU_LABELS: Record<string, string> = {
  gateway: 'gw',
  links: 'links',
  shops: 'shops',
  notifier: 'notif',
  reference: 'ref',
  'reference-cluster': 'refs',
  postgres: 'pg',
  load: 'load',
  kafka: 'kafka',
  redis: 'redis*',
  nats: 'nats*',
  bench: 'bench',
};

function cpuText(cpu: CpuWindow | null): string {
  if (!cpu) return '';
  const parts = Object.entries(cpu.usage)
    .filter(([, v]) => v >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${CPU_LABELS[k] ?? k} ${Math.round(v)}`);
  return `${parts.join(' · ')}; machine ${Math.round(cpu.machine)}/200, others ${Math.round(cpu.outside)}`;
}

const num = (n: number | null | undefined, digits = 0): string => (n === null || n === undefined || Number.isNaN(n) ? '–' : n.toFixed(digits));

function ratiosTo(row: Row, r: Compared): string {
  const rps = row.rps !== null && r.rps ? `${(row.rps / r.rps).toFixed(2)}× req/s` : '';
  const p99 = row.p99 !== null && r.p99 ? `${(row.p99 / r.p99).toFixed(2)}× p99` : '';
  const cpu = row.cpuMsPerRequest && r.cpuMsPerRequest ? `${(row.cpuMsPerRequest / r.cpuMsPerRequest).toFixed(2)}× CPU/req` : '';
  return [rps, p99, cpu].filter(Boolean).join(', ');
}

/** A row compared with both references names each; one compared with a single baseline (expiry) stays as it was. */
function ratioText(row: Row): string {
  if (!row.reference) return '';
  if (!row.referenceCluster) return ratiosTo(row, row.reference);
  return `${ratiosTo(row, row.reference)} vs 1 process; ${ratiosTo(row, row.referenceCluster)} vs every core`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** The results as a Markdown table (docs/benchmarks.md takes it as it is). */
export function resultsTable(rows: Row[]): string {
  return table(
    ['scenario', 'served by', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'CPU ms/req', 'CPU % of one core per process', 'vs reference'],
    rows.map((r) => [
      r.note ? `${r.scenario} (${r.note})` : r.scenario,
      r.target,
      num(r.rps),
      num(r.p50, 1),
      num(r.p99, 1),
      num(r.errors),
      num(r.cpuMsPerRequest, 2),
      cpuText(r.cpu),
      ratioText(r),
    ]),
  );
}

export function targetsTable(checks: TargetCheck[]): string {
  return table(
    ['target', 'measured', 'result'],
    checks.map((c) => [c.target, c.measured, c.pass === null ? 'not judged' : c.pass ? 'PASS' : 'FAIL']),
  );
}
