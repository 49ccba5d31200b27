import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A child process of the bench whose output goes to a log file (reading pipes would cost the bench CPU). */
export interface BenchProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  logFile: string;
  exited: Promise<number | null>;
  /** True once it exited (for whatever reason). */
  isDead: () => boolean;
}

const live = new Set<BenchProcess>();

/** Starts `command` with its output in `logDir/name.log` (`append`: after what earlier runs of that name wrote). */
export function spawnLogged(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logDir: string,
  cwd?: string,
  append = false,
): BenchProcess {
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${name}.log`);
  const fd = openSync(logFile, append ? 'a' : 'w');
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return adopt(name, child, logFile);
}

/** Puts a child the bench started under its clean-up (stopped at the end, killed on an abrupt exit). */
export function adopt(name: string, child: ChildProcess, logFile: string): BenchProcess {
  if (child.pid === undefined) throw new Error(`${name} could not be started`);
  let dead = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      dead = true;
      resolve(code ?? (signal ? 128 : null));
    }),
  );
  const p: BenchProcess = { name, child, pid: child.pid, logFile, exited, isDead: () => dead };
  live.add(p);
  void exited.then(() => live.delete(p));
  return p;
}

/** The last lines of a process's log, for an error message. */
function logTail(p: BenchProcess, lines = 30): string {
  try {
    return readFileSync(p.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** SIGTERM, then SIGKILL after `graceMs`. Resolves with the exit code. */
export async function stopProcess(p: BenchProcess, graceMs = 30_000): Promise<number | null> {
  if (p.isDead()) return p.exited;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  const code = await p.exited;
  clearTimeout(timer);
  return code;
}

/** Stops every child the bench still has, newest first (the load, then the services, then the mock). */
export async function stopAllProcesses(graceMs = 30_000): Promise<void> {
  for (const p of [...live].reverse()) await stopProcess(p, graceMs);
}

/** Last resort on an abrupt exit: no child outlives the bench. */
export function killAllProcessesNow(): void {
  for (const p of live) if (!p.isDead()) p.child.kill('SIGKILL');
}

/** Polls `url` until it answers `status`; fails early when the process dies, and after `timeoutMs`. */
export async function waitUntilReady(p: BenchProcess, url: string, timeoutMs = 60_000, status = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (p.isDead()) throw new Error(`${p.name} exited before it was ready:\n${logTail(p)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.status === status) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${p.name} was not ready at ${url} after ${timeoutMs} ms:\n${logTail(p)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
