import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process in clock ticks, or null once it is gone. */
function cpuTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of proc(5), counted from field 3 (state) here.
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** Resident set size in MiB, or null once the process is gone. */
export function rssMiB(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Busy and total jiffies of the whole machine (every core), from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** Postgres backends serving `database` (their process title names it), found through /proc. */
export function postgresBackends(database: string): number[] {
  const pids: number[] = [];
  const needle = ` ${database} `;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.startsWith('postgres: ') && cmd.includes(needle)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * A process and its live children (a node:cluster primary and its workers), from
 * `/proc/<pid>/task/<pid>/children`: read again at each call, so a worker that comes or goes is seen.
 */
export function withChildren(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return [pid, ...(children ? children.split(/\s+/).map(Number) : [])];
  } catch {
    return [pid];
  }
}

/** A named set of processes whose CPU is added up (a service, the load generator, Postgres backends). */
export interface CpuGroup {
  name: string;
  pids: () => number[];
}

/** Per group: CPU used during the window as % of one core (100 = one core busy the whole time). */
type CpuUsage = Record<string, number>;

export interface CpuWindow {
  usage: CpuUsage;
  /** The whole machine's CPU during the window, % of one core (200 = both cores busy). */
  machine: number;
  /** What the machine spent outside every group: other people's work, the kernel, Redis, NATS. */
  outside: number;
  seconds: number;
}

/**
 * Measures the CPU of each group over a window. Processes are sampled every second as well as at the ends,
 * so a Postgres backend that appears (or exits) mid-window is still counted (from zero when it is new).
 */
export class CpuMeter {
  private first = new Map<number, number>();
  private last = new Map<number, number>();
  private groupOf = new Map<number, string>();
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private machineStart = { busy: 0, total: 0 };

  constructor(private readonly groups: CpuGroup[]) {}

  start(): void {
    this.first.clear();
    this.last.clear();
    this.groupOf.clear();
    this.startedAt = performance.now();
    this.machineStart = machineTicks();
    this.sample(true);
    this.timer = setInterval(() => this.sample(false), 1000);
  }

  stop(): CpuWindow {
    clearInterval(this.timer);
    this.sample(false);
    const seconds = (performance.now() - this.startedAt) / 1000;
    const usage: CpuUsage = {};
    for (const g of this.groups) usage[g.name] = 0;
    for (const [pid, last] of this.last) {
      const group = this.groupOf.get(pid)!;
      usage[group] = (usage[group] ?? 0) + (last - (this.first.get(pid) ?? 0));
    }
    const toPercent = (ticks: number): number => Math.round((ticks / CLK_TCK / seconds) * 1000) / 10;
    for (const k of Object.keys(usage)) usage[k] = toPercent(usage[k] ?? 0);
    const m = machineTicks();
    const cores = this.cores();
    const machine = Math.round(((m.busy - this.machineStart.busy) / Math.max(1, m.total - this.machineStart.total)) * cores * 1000) / 10;
    const ours = Object.values(usage).reduce((a, b) => a + b, 0);
    return { usage, machine, outside: Math.max(0, Math.round((machine - ours) * 10) / 10), seconds };
  }

  private cores(): number {
    return (readFileSync('/proc/stat', 'utf8').match(/^cpu\d+ /gm) ?? ['cpu0']).length;
  }

  private sample(initial: boolean): void {
    for (const g of this.groups) {
      let pids: number[];
      try {
        pids = g.pids();
      } catch {
        continue;
      }
      for (const pid of pids) {
        const ticks = cpuTicks(pid);
        if (ticks === null) continue;
        if (!this.first.has(pid)) {
          // Seen at the start: counted from now. Appeared later: all its CPU is in the window.
          this.first.set(pid, initial ? ticks : 0);
          this.groupOf.set(pid, g.name);
        }
        this.last.set(pid, ticks);
      }
    }
  }
}
