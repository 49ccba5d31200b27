import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { adopt } from './processes';
import type { ClosedLoopResult, ClosedLoopSpec, LoadResult, LoadSpec, PacedResult, PacedSpec } from './load-spec';

const WORKER = join(__dirname, 'load-worker.ts');

export interface LoadRun<R extends LoadResult> {
  pid: number;
  /** Resolves when the warm-up is over and the measured part begins. */
  measuring: Promise<void>;
  result: Promise<R>;
  /** Ends a stoppable run now (it still reports what it measured). */
  stop(): void;
}

let runs = 0;

/** Starts the load generator in a process of its own (see load-worker.ts). */
export function startLoad(spec: ClosedLoopSpec, workDir: string): LoadRun<ClosedLoopResult>;
export function startLoad(spec: PacedSpec, workDir: string): LoadRun<PacedResult>;
export function startLoad(spec: LoadSpec, workDir: string): LoadRun<LoadResult> {
  mkdirSync(workDir, { recursive: true });
  const n = ++runs;
  const specFile = join(workDir, `load-${n}.json`);
  writeFileSync(specFile, JSON.stringify(spec));
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, specFile], {
    cwd: join(__dirname, '..', '..'),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', NODE_ENV: 'production' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const logFile = join(workDir, `load-${n}.stderr.log`);
  child.stderr.pipe(createWriteStream(logFile));
  adopt(`load-${n}`, child, logFile);
  let onMeasure: () => void = () => undefined;
  const measuring = new Promise<void>((resolve) => (onMeasure = resolve));
  const result = new Promise<LoadResult>((resolve, reject) => {
    let got: LoadResult | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      let msg: { event?: string; result?: LoadResult };
      try {
        msg = JSON.parse(line) as typeof msg;
      } catch {
        return;
      }
      if (msg.event === 'measure') onMeasure();
      if (msg.event === 'result') got = msg.result;
    });
    child.once('exit', (code) => {
      onMeasure();
      if (got) resolve(got);
      else reject(new Error(`load generator exited with ${code} and no result (see ${logFile})`));
    });
  });
  return {
    pid: child.pid!,
    measuring,
    result,
    stop: () => {
      if (child.exitCode === null) child.stdin.write('stop\n');
    },
  };
}
