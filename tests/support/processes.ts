import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export type ServiceName = 'gateway' | 'links' | 'shops' | 'notifier';

export interface ServiceProcess {
  name: ServiceName;
  child: ChildProcess;
  /** Every line the process wrote to stdout and stderr so far. */
  lines: string[];
  /** The parsed "… started" log line (holds `port`, `ops_port`). */
  started: Record<string, unknown>;
  exited: Promise<number | null>;
}

/**
 * Runs a service from its built dist/ as a real process (as in production), waiting for its "started"
 * log line. `npm test` builds dist/ first.
 */
export async function startServiceProcess(name: ServiceName, env: Record<string, string>): Promise<ServiceProcess> {
  const main = join(__dirname, '..', '..', 'services', name, 'dist', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first (npm test does)`);
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, OPS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let onStarted: (fields: Record<string, unknown>) => void = () => undefined;
  const startedLine = new Promise<Record<string, unknown>>((resolve) => (onStarted = resolve));
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (/"msg":"[a-z ]*started"/.test(line)) onStarted(JSON.parse(line) as Record<string, unknown>);
    });
  }
  const started = await Promise.race([
    startedLine,
    exited.then((code) => {
      throw new Error(`${name} exited with ${code} before it started:\n${lines.join('\n')}`);
    }),
  ]);
  return { name, child, lines, started, exited };
}

export async function stopServiceProcess(p: ServiceProcess): Promise<number | null> {
  if (p.child.exitCode === null) p.child.kill('SIGTERM');
  return p.exited;
}
