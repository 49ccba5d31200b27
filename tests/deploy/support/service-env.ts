import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig as loadGatewayConfig } from '@pl/gateway';
import { loadConfig as loadLinksConfig } from '@pl/links';
import { loadConfig as loadNotifierConfig } from '@pl/notifier';
import { loadConfig as loadShopsConfig } from '@pl/shops';
import { CRASH_POINT_ENV } from '@pl/config';
import { ROOT, projectDependencies, readText, type ServiceName } from './repo';

type Loader = (env: NodeJS.ProcessEnv) => unknown;

export const LOADERS: Record<ServiceName, Loader> = {
  gateway: loadGatewayConfig,
  links: loadLinksConfig,
  shops: loadShopsConfig,
  notifier: loadNotifierConfig,
};

/**
 * The variables a loadConfig reads, found by running it against an environment that records every key asked
 * for (all unset, so every default applies). This follows the zod shape as it is, whatever the shape's name
 * or where its parts come from (commonEnv, shopStorageEnv...).
 */
export function keysReadBy(load: Loader): string[] {
  const seen = new Set<string>();
  const recorder = new Proxy(
    {},
    {
      get(_target, key) {
        if (typeof key === 'string' && /^[A-Z][A-Z0-9_]*$/.test(key)) seen.add(key);
        return undefined;
      },
    },
  );
  load(recorder);
  return [...seen].sort();
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Read directly, but only outside production: the crash tests' fault injection, which no deployment sets. */
const TEST_ONLY: ReadonlySet<string> = new Set(CRASH_POINT_ENV);

/**
 * `process.env.X` / `process.env['X']` read directly by the service's code or the libraries it runs with,
 * but for the test-only ones.
 */
function directEnvReads(service: ServiceName): string[] {
  const dirs = [`services/${service}`, ...projectDependencies(`services/${service}`)];
  const keys = new Set<string>();
  for (const dir of dirs) {
    for (const file of sourceFiles(`${dir}/src`)) {
      for (const m of readText(file).matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g)) {
        const key = (m[1] ?? m[2])!;
        if (!TEST_ONLY.has(key)) keys.add(key);
      }
    }
  }
  return [...keys].sort();
}

/** Everything a service reads from its environment: its config shape plus any direct reads. */
export function envReadBy(service: ServiceName): string[] {
  return [...new Set([...keysReadBy(LOADERS[service]), ...directEnvReads(service)])].sort();
}

/** What scripts/migrate-all.js reads: DATABASE_URL itself, LOG_LEVEL through createLogger. */
export function envReadByMigrations(): string[] {
  const script = readText('scripts/migrate-all.js');
  const keys = new Set([...script.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!));
  keys.add('LOG_LEVEL');
  return [...keys].sort();
}
