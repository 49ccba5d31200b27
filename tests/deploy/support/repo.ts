import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root (tests/deploy/support → ../../..). */
export const ROOT = resolve(__dirname, '..', '..', '..');

export const SERVICES = ['gateway', 'links', 'shops', 'notifier'] as const;
export type ServiceName = (typeof SERVICES)[number];

export const readText = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
export const exists = (path: string): boolean => existsSync(join(ROOT, path));

/** `KEY=value` lines of an env file (comments and blank lines skipped; the value keeps any further `=`). */
export function parseEnvFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of readText(path).split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`${path}: not KEY=value: ${line}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** Reads a tsconfig.json (they are plain JSON in this repository). */
function readTsconfig(dir: string): { compilerOptions?: { outDir?: string }; references?: { path: string }[] } {
  return JSON.parse(readText(join(dir, 'tsconfig.json'))) as { compilerOptions?: { outDir?: string }; references?: { path: string }[] };
}

/** Whether `dir` is a TypeScript project that emits into `dir/dist` (so `dir/dist` exists after `npm run build`). */
export function emitsDist(dir: string): boolean {
  return exists(join(dir, 'tsconfig.json')) && readTsconfig(dir).compilerOptions?.outDir === 'dist';
}

/** Every project a project needs at run time: its project references, transitively (repo-relative dirs). */
export function projectDependencies(dir: string): Set<string> {
  const seen = new Set<string>();
  const visit = (project: string): void => {
    for (const ref of readTsconfig(project).references ?? []) {
      const target = join(project, ref.path).replace(/\\/g, '/');
      if (seen.has(target)) continue;
      seen.add(target);
      visit(target);
    }
  };
  visit(dir);
  return seen;
}
