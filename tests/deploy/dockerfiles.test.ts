// deploy/Dockerfile, checked offline (no Docker engine here): one multi-stage file with a target per image, built
// with the repository root as the context.
// Everything it COPYs exists (in the build context, or produced by the build stage), the runtime base installs
// production dependencies from the lockfile, each service target carries exactly the libraries it runs with,
// runs as a non-root user with a health check, and starts the service. The gateway image also carries the
// compiled operators' CLI (tools/admin), so `kubectl exec deploy/gateway -- node tools/admin/dist/main.js ...` works.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readText, exists, emitsDist, projectDependencies, ROOT, SERVICES } from './support/repo';

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  name: string;
  base: string;
  instructions: Instruction[];
}

/** Instructions of a Dockerfile: continuation lines joined, comments and parser directives dropped. */
function parseDockerfile(path: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of readText(path).split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (pending === '' && line === '')) continue; // a comment, also inside a continued instruction
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

/** Stages by name (`FROM <base> AS <name>`); the instructions after each FROM up to the next. */
function stagesOf(instructions: Instruction[]): Map<string, Stage> {
  const out = new Map<string, Stage>();
  let current: Stage | undefined;
  for (const i of instructions) {
    if (i.keyword === 'FROM') {
      const m = /^(\S+)\s+AS\s+(\S+)$/i.exec(i.args);
      if (!m) throw new Error(`every stage is named: FROM ${i.args}`);
      current = { base: m[1]!, name: m[2]!, instructions: [] };
      out.set(current.name, current);
    } else current?.instructions.push(i);
  }
  return out;
}

interface Copy {
  from?: string;
  sources: string[];
  dest: string;
}

function copies(stage: Stage): Copy[] {
  return stage.instructions
    .filter((i) => i.keyword === 'COPY')
    .map((i) => {
      const words = i.args.split(/\s+/);
      const paths = words.filter((w) => !w.startsWith('--'));
      const from = words.find((f) => f.startsWith('--from='))?.slice('--from='.length);
      return { from, sources: paths.slice(0, -1), dest: paths[paths.length - 1] ?? '' };
    });
}

/** What a stage's COPYs bring in, repository-relative (`/app/` dropped). */
const copiedPaths = (stage: Stage): string[] => copies(stage).flatMap((c) => c.sources.map((s) => s.replace(/^\/app\//, '')));

/** Whether the build stage (the repository at /app after `npm install && npm run build`) has this path. */
function buildStageHas(appPath: string): boolean {
  const path = appPath.replace(/^\/app\/?/, '');
  const dist = /^(.+)\/dist(\/.*)?$/.exec(path);
  if (dist) {
    const inside = dist[2] ?? '';
    return emitsDist(dist[1]!) && (inside === '' || exists(`${dist[1]!}/src${inside.replace(/\.js$/, '.ts')}`));
  }
  return exists(path);
}

/** Every workspace folder of the root package.json (its globs are `<dir>/*`). */
function workspaces(): string[] {
  const globs = (JSON.parse(readText('package.json')) as { workspaces: string[] }).workspaces;
  return globs.flatMap((glob) => {
    const dir = glob.replace(/\/\*$/, '');
    return readdirSync(join(ROOT, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory() && exists(`${dir}/${e.name}/package.json`))
      .map((e) => `${dir}/${e.name}`);
  });
}

/** The user a target runs as: its own last USER, else its base stage's, else root. */
function userOf(stages: Map<string, Stage>, name: string): string {
  const stage = stages.get(name);
  if (!stage) return 'root';
  return stage.instructions.filter((i) => i.keyword === 'USER').pop()?.args ?? userOf(stages, stage.base);
}

const DOCKERFILE = 'deploy/Dockerfile';
/** BuildKit's ignore file for a Dockerfile outside the context root: named after it, beside it. */
const DOCKERIGNORE = `${DOCKERFILE}.dockerignore`;
const stages = stagesOf(parseDockerfile(DOCKERFILE));
const stage = (name: string): Stage => {
  const found = stages.get(name);
  if (!found) throw new Error(`no stage ${name} in ${DOCKERFILE}`);
  return found;
};
const OPS_PORTS: Record<string, number> = { gateway: 9100, links: 9101, shops: 9102, notifier: 9103 };
/** The admin CLI and the projects it runs with (its project references, transitively). */
const ADMIN = 'tools/admin';
const adminProjects = [...projectDependencies(ADMIN)];
/** What a service target runs: the service itself, and for the gateway the admin CLI too. */
const projectsOf = (service: string): string[] => [`services/${service}`, ...(service === 'gateway' ? [ADMIN, ...adminProjects] : [])];
const libsOf = (service: string): string[] =>
  [
    ...new Set(
      projectsOf(service)
        .flatMap((p) => [...projectDependencies(p)])
        .filter((p) => p.startsWith('libs/')),
    ),
  ].sort();
const TARGETS = [...SERVICES, 'migrate'];

test('is the one Dockerfile: a build stage, a runtime base and a target per image, and no other copy (per service, or at the root)', () => {
  expect([...stages.keys()].sort()).toEqual(['build', 'runtime', ...TARGETS].sort());
  for (const target of TARGETS) expect(`${target}: ${stage(target).base}`).toBe(`${target}: runtime`);
  for (const old of [...SERVICES.map((s) => `services/${s}/Dockerfile`), 'Dockerfile', '.dockerignore'])
    expect(`${old}: ${exists(old)}`).toBe(`${old}: false`);
});

test('builds and runs on the Node LTS line that package.json engines names, in a slim image', () => {
  const major = /(\d+)/.exec((JSON.parse(readText('package.json')) as { engines: { node: string } }).engines.node)?.[1];
  for (const name of ['build', 'runtime']) expect(stage(name).base).toBe(`node:${major}-bookworm-slim`);
});

test('the build stage installs with the lockfile and compiles every workspace', () => {
  const run = stage('build')
    .instructions.filter((i) => i.keyword === 'RUN')
    .map((i) => i.args)
    .join(' ');
  expect(run).toMatch(/npm install --no-audit --no-fund/);
  expect(run).toMatch(/npm run build/);
});

test('the runtime base installs production dependencies only, with npm ci, from every workspace manifest and the dependency patches, nothing else', () => {
  const runtime = stage('runtime');
  const run = runtime.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  expect(run).toEqual([expect.stringMatching(/npm ci --omit=dev\b/)]);
  expect(runtime.instructions.find((i) => i.keyword === 'ENV')?.args).toMatch(/NODE_ENV=production/);
  expect(copies(runtime).every((c) => c.from === undefined)).toBe(true);
  const manifests = ['package.json', 'package-lock.json', ...workspaces().map((w) => `${w}/package.json`)];
  expect(copiedPaths(runtime).sort()).toEqual([...manifests, 'patches'].sort());
});

test("npm ci applies the dependency patches in the runtime image too: patch-package is the root's postinstall and a production dependency", () => {
  const root = JSON.parse(readText('package.json')) as { scripts: Record<string, string>; dependencies?: Record<string, string> };
  expect(root.scripts.postinstall).toBe('patch-package');
  expect(Object.keys(root.dependencies ?? {})).toContain('patch-package');
  const runtime = stage('runtime');
  const patchesAt = runtime.instructions.findIndex((i) => i.keyword === 'COPY' && i.args.startsWith('patches '));
  const installAt = runtime.instructions.findIndex((i) => i.keyword === 'RUN' && i.args.includes('npm ci'));
  expect(patchesAt).toBeGreaterThanOrEqual(0);
  expect(patchesAt).toBeLessThan(installAt);
});

test('copies only what exists: context sources are in the repository (node_modules and dist ignored), build-stage sources are produced there', () => {
  const ignore = readText(DOCKERIGNORE).split('\n');
  for (const pattern of ['**/node_modules', '**/dist', '.git']) expect(ignore).toContain(pattern);
  for (const s of stages.values()) {
    for (const copy of copies(s)) {
      for (const source of copy.sources) {
        if (copy.from === undefined) expect(`${source}: ${source === '.' || exists(source)}`).toBe(`${source}: true`);
        else {
          expect(copy.from).toBe('build');
          expect(`${source}: ${buildStageHas(source)}`).toBe(`${source}: true`);
        }
      }
    }
  }
});

describe.each(TARGETS)('target %s', (target) => {
  test('runs as a non-root user and installs nothing of its own', () => {
    expect(userOf(stages, target)).not.toMatch(/^(root|0)(:|$)/);
    expect(stage(target).instructions.some((i) => i.keyword === 'RUN')).toBe(false);
  });
});

describe.each(SERVICES)('target %s', (service) => {
  const runtime = stage(service);
  const copied = copiedPaths(runtime);

  test('starts the service and checks /healthz on its ops port with node', () => {
    expect(runtime.instructions.filter((i) => i.keyword === 'CMD').pop()?.args).toBe(`["node", "services/${service}/dist/main.js"]`);
    expect(copied).toContain(`services/${service}/dist`);
    const health = runtime.instructions.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '';
    expect(health).toMatch(/CMD \["node", "-e", /);
    expect(health).toContain('/healthz');
    expect(health).toContain(`process.env.OPS_PORT || ${OPS_PORTS[service]}`);
    expect(runtime.instructions.find((i) => i.keyword === 'EXPOSE')?.args.split(' ')).toContain(String(OPS_PORTS[service]));
  });

  test('carries exactly the libraries the service runs with (its project references), its migrations and its assets', () => {
    const needed = libsOf(service);
    const libs = [...new Set(copied.filter((p) => p.startsWith('libs/')).map((p) => p.split('/').slice(0, 2).join('/')))].sort();
    expect(libs).toEqual(needed);
    for (const lib of needed) expect(copied).toContain(`${lib}/dist`);
    // Another service's code only as the admin CLI needs it (compiled code: no migrations, no assets).
    const others = projectsOf(service).filter((p) => p.startsWith('services/') && p !== `services/${service}`);
    expect(copied.filter((p) => p.startsWith('services/') && !p.startsWith(`services/${service}/`)).sort()).toEqual(
      others.map((p) => `${p}/dist`).sort(),
    );
    if (exists(`services/${service}/migrations`)) expect(copied).toContain(`services/${service}/migrations`);
    if (service === 'gateway') expect(copied).toContain('services/gateway/src/entry/checkout/assets');
  });
});

test('target migrate is the migrations job: every service migrations folder, the libraries they run with and scripts/migrate-all.js', () => {
  const migrate = stage('migrate');
  const copied = copiedPaths(migrate);
  for (const service of SERVICES) expect(copied).toEqual(expect.arrayContaining([`services/${service}/dist`, `services/${service}/migrations`]));
  const needed = [...new Set(SERVICES.flatMap((s) => [...projectDependencies(`services/${s}`)].filter((p) => p.startsWith('libs/'))))].sort();
  expect(
    copied
      .filter((p) => p.startsWith('libs/'))
      .map((p) => p.replace(/\/dist$/, ''))
      .sort(),
  ).toEqual(needed);
  expect(copied).toContain('scripts/migrate-all.js');
  expect(migrate.instructions.filter((i) => i.keyword === 'CMD').pop()?.args).toBe('["node", "scripts/migrate-all.js"]');
});

describe('the admin CLI in the gateway image', () => {
  const gateway = stage('gateway');
  const copied = copiedPaths(gateway);

  test('tsc -b builds it: the build references it and it compiles src into dist, main.ts included', () => {
    const build = JSON.parse(readText('tsconfig.build.json')) as { references: { path: string }[] };
    expect(build.references.map((r) => r.path)).toContain(ADMIN);
    expect(emitsDist(ADMIN)).toBe(true);
    expect(buildStageHas(`/app/${ADMIN}/dist/main.js`)).toBe(true);
  });

  test('the gateway target copies the compiled CLI and every service it uses from the build stage, and still starts the gateway', () => {
    const adminCopy = copies(gateway).find((c) => c.sources.includes(`/app/${ADMIN}/dist`));
    expect(adminCopy).toEqual({ from: 'build', sources: [`/app/${ADMIN}/dist`], dest: `${ADMIN}/dist` });
    for (const project of adminProjects) expect(copied).toContain(`${project}/dist`);
    expect(gateway.instructions.filter((i) => i.keyword === 'CMD').pop()?.args).toBe('["node", "services/gateway/dist/main.js"]');
  });

  test('the runtime base installs its production dependencies: its manifest is among those npm ci reads', () => {
    // npm links every workspace into node_modules/@pl, so the services it imports resolve to their dist in the image.
    expect(copiedPaths(stage('runtime'))).toContain(`${ADMIN}/package.json`);
  });

  test('docs/operations.md shows how to run it in the cluster, with the path the image has', () => {
    expect(readText('docs/operations.md')).toMatch(/kubectl exec (-i )?deploy\/gateway -- node tools\/admin\/dist\/main\.js shop:list/);
  });
});

test('the gateway image carries the API reference bundle: the gateway build copies it into dist, which the target ships whole', () => {
  // `/docs` serves services/gateway/dist/docs/api-reference.js (docs.routes.ts); the package it comes from is a dev
  // dependency, so only the build stage has it and the production install must not be needed for it.
  const gatewayPackage = JSON.parse(readText('services/gateway/package.json')) as {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  expect(gatewayPackage.scripts.build).toContain('node src/entry/docs/copy-bundle.mjs');
  expect(readText('services/gateway/src/entry/docs/copy-bundle.mjs')).toMatch(/'\.\.\/\.\.\/\.\.\/dist\/docs'[\s\S]*'api-reference\.js'/);
  expect(readText('services/gateway/src/entry/docs/docs.routes.ts')).toMatch(/'\.\.\/\.\.\/\.\.\/dist\/docs'[\s\S]*'api-reference\.js'/);
  expect(gatewayPackage.devDependencies['@scalar/api-reference']).toMatch(/^\d+\.\d+\.\d+$/);
  expect(gatewayPackage.dependencies['@scalar/api-reference']).toBeUndefined();
  expect(readText('package.json')).toMatch(/"build": "[^"]*npm run build -w services\/gateway/);
  expect(copies(stage('gateway'))).toContainEqual({ from: 'build', sources: ['/app/services/gateway/dist'], dest: 'services/gateway/dist' });
  // The build stage installs dev dependencies (no --omit=dev), so the bundle is there to copy.
  expect(
    stage('build')
      .instructions.filter((i) => i.keyword === 'RUN')
      .map((i) => i.args)
      .join(' '),
  ).not.toMatch(/--omit=dev|--production/);
});
