import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestDatabase } from '@pl/testing';
import { createMigratedDatabase, distMain, ROOT, SERVICE_NAMES } from '../lib/system';

export { ROOT, SERVICE_NAMES, type ServiceName } from '../lib/system';

/**
 * Postgres, Redis, NATS and the project's Kafka mock, through scripts/local-deps.sh; returns KAFKA_BROKERS.
 * The mock is shared with everyone's tests on the machine, so it is left running.
 */
export function ensureLocalDeps(): string {
  const out = execFileSync('bash', [join(ROOT, 'scripts', 'local-deps.sh')], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const brokers = /^export KAFKA_BROKERS='([^']*)'$/m.exec(out)?.[1];
  if (!brokers) throw new Error(`scripts/local-deps.sh printed no KAFKA_BROKERS:\n${out}`);
  return brokers;
}

/**
 * `npm run build` (tsc -b: a few seconds when nothing changed). Others edit the tree at the same time, so a
 * failed build is not fatal while every service still has a dist/ to run; the soak says so.
 */
export function build(log: (line: string) => void): void {
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status === 0) return;
  const missing = SERVICE_NAMES.filter((s) => !existsSync(distMain(s)));
  const output = `${result.stdout}${result.stderr}`.trim().split('\n').slice(-15).join('\n');
  if (missing.length > 0) throw new Error(`npm run build failed and ${missing.join(', ')} has no dist/:\n${output}`);
  log(`WARNING: npm run build failed; running the dist/ already there:\n${output}`);
}

/** A database of the soak's own, migrated by the production migration script. */
export const createSoakDatabase = (): Promise<TestDatabase> => createMigratedDatabase('soak');
