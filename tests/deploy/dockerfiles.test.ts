// The Dockerfiles, checked offline (no Docker engine here): everything they COPY exists (from the build
// context, or is produced by the build stage), each service image carries exactly the libraries it runs with,
// runs as a non-root user with a health check, and starts the service.
import { readText, exists, emitsDist, projectDependencies, SERVICES } from './support/repo';

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions of a Dockerfile: continuation lines joined, comments and parser directives dropped. */
function parseDockerfile(path: string): Instruction[] {
  const lines = readText(path).split('\n');
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue; // a comment inside a continued instruction
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = pending + line;
    pending = '';
    const space = full.indexOf(' ');
    out.push({ keyword: full.slice(0, space).toUpperCase(), args: full.slice(space + 1).trim() });
  }
  return out;
}

/** Instructions grouped by stage (each starts at a FROM). */
function stages(instructions: Instruction[]): Instruction[][] {
  const out: Instruction[][] = [];
  for (const i of instructions) {
    if (i.keyword === 'FROM') out.push([]);
    out[out.length - 1]?.push(i);
  }
  return out;
}

/** The text of the build stage, from its FROM to the next FROM. */
function buildStageText(path: string): string {
  const text = readText(path);
  const first = text.indexOf('\nFROM ');
  const second = text.indexOf('\nFROM ', first + 1);
  return text.slice(first, second);
}

interface Copy {
  from?: string;
  sources: string[];
  dest: string;
}

function copies(stage: Instruction[]): Copy[] {
  return stage
    .filter((i) => i.keyword === 'COPY')
    .map((i) => {
      const words = i.args.split(/\s+/);
      const flags = words.filter((w) => w.startsWith('--'));
      const paths = words.filter((w) => !w.startsWith('--'));
      const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
      return { from, sources: paths.slice(0, -1), dest: paths[paths.length - 1] ?? '' };
    });
}

/**
 * Whether the build stage (which holds the repository at /app after `npm install && npm run build`) has this
 * path: it is in the repository, or under the `dist` a TypeScript project emits, or node_modules.
 */
function buildStageHas(appPath: string): boolean {
  const path = appPath.replace(/^\/app\/?/, '');
  if (path === 'node_modules') return true;
  const dist = /^(.+)\/dist(\/.*)?$/.exec(path);
  if (dist) {
    const project = dist[1]!;
    const inside = dist[2] ?? '';
    if (!emitsDist(project)) return false;
    return inside === '' || exists(`${project}/src${inside.replace(/\.js$/, '.ts')}`);
  }
  return exists(path);
}

const DOCKERFILES = [...SERVICES.map((s) => `services/${s}/Dockerfile`), 'deploy/Dockerfile'];
const OPS_PORTS: Record<string, number> = { gateway: 9100, links: 9101, shops: 9102, notifier: 9103 };

describe.each(DOCKERFILES)('%s', (path) => {
  const instructions = parseDockerfile(path);
  const [build, runtime] = stages(instructions);

  test('is multi-stage: a build stage that installs with the lockfile, builds and prunes to production dependencies', () => {
    expect(stages(instructions)).toHaveLength(2);
    expect(build?.[0]?.args).toBe('node:20-bookworm-slim AS build');
    const run =
      build
        ?.filter((i) => i.keyword === 'RUN')
        .map((i) => i.args)
        .join(' ') ?? '';
    expect(run).toMatch(/npm install --no-audit --no-fund/);
    expect(run).toMatch(/npm run build/);
    expect(run).toMatch(/npm prune --omit=dev/);
    expect(run).not.toMatch(/npm ci\b/);
  });

  test('copies only what exists: build-context sources are in the repository (node_modules and dist ignored), build-stage sources are produced there', () => {
    const ignore = readText(`${path}.dockerignore`);
    for (const pattern of ['**/node_modules', '**/dist', '.git']) expect(ignore.split('\n')).toContain(pattern);
    for (const stage of [build, runtime]) {
      for (const copy of copies(stage ?? [])) {
        for (const source of copy.sources) {
          if (copy.from === undefined) expect(`${source}: ${exists(source)}`).toBe(`${source}: true`);
          else {
            expect(copy.from).toBe('build');
            expect(`${source}: ${buildStageHas(source)}`).toBe(`${source}: true`);
          }
        }
      }
    }
  });

  test('runs as a non-root user from production dependencies only', () => {
    const user = runtime?.filter((i) => i.keyword === 'USER').pop()?.args ?? 'root';
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    const runtimeCopies = copies(runtime ?? []);
    expect(runtimeCopies.every((c) => c.from === 'build')).toBe(true);
    expect(runtime?.some((i) => i.keyword === 'RUN' && /npm (install|ci)/.test(i.args))).toBe(false);
    expect(runtime?.find((i) => i.keyword === 'ENV')?.args).toMatch(/NODE_ENV=production/);
  });

  test('shares its build stage text with every other Dockerfile, so BuildKit builds it once', () => {
    expect(buildStageText(path)).toBe(buildStageText('deploy/Dockerfile'));
  });
});

describe.each(SERVICES)('services/%s/Dockerfile', (service) => {
  const path = `services/${service}/Dockerfile`;
  const runtime = stages(parseDockerfile(path))[1] ?? [];
  const copied = copies(runtime).flatMap((c) => c.sources.map((s) => s.replace(/^\/app\//, '')));

  test('starts the service and checks /healthz on its ops port with node', () => {
    expect(runtime.filter((i) => i.keyword === 'CMD').pop()?.args).toBe(`["node", "services/${service}/dist/main.js"]`);
    expect(copied).toContain(`services/${service}/dist`);
    const health = runtime.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '';
    expect(health).toMatch(/CMD \["node", "-e", /);
    expect(health).toContain('/healthz');
    expect(health).toContain(`process.env.OPS_PORT || ${OPS_PORTS[service]}`);
    expect(runtime.find((i) => i.keyword === 'EXPOSE')?.args.split(' ')).toContain(String(OPS_PORTS[service]));
  });

  test('carries exactly the libraries the service runs with (its project references), its migrations and its assets', () => {
    const needed = [...projectDependencies(`services/${service}`)].filter((p) => p.startsWith('libs/')).sort();
    const libs = [...new Set(copied.filter((p) => p.startsWith('libs/')).map((p) => p.split('/').slice(0, 2).join('/')))].sort();
    expect(libs).toEqual(needed);
    for (const lib of needed) expect(copied).toEqual(expect.arrayContaining([`${lib}/package.json`, `${lib}/dist`]));
    if (exists(`services/${service}/migrations`)) expect(copied).toContain(`services/${service}/migrations`);
    if (service === 'gateway') expect(copied).toContain('services/gateway/src/entry/checkout/assets');
  });
});

test('deploy/Dockerfile is the migrations image: every service migrations folder and scripts/migrate-all.js', () => {
  const runtime = stages(parseDockerfile('deploy/Dockerfile'))[1] ?? [];
  const copied = copies(runtime).flatMap((c) => c.sources.map((s) => s.replace(/^\/app\//, '')));
  for (const service of SERVICES) expect(copied).toEqual(expect.arrayContaining([`services/${service}/dist`, `services/${service}/migrations`]));
  expect(copied).toContain('scripts/migrate-all.js');
  expect(copied).toContain('libs/telemetry/dist');
  expect(runtime.filter((i) => i.keyword === 'CMD').pop()?.args).toBe('["node", "scripts/migrate-all.js"]');
});
