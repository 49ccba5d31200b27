// Every variable a service reads is set for it in docker-compose.yml and in each rendered k8s overlay, and the
// service's own loadConfig accepts the values found there.
import { composeEnv, loadCompose } from './support/compose';
import { render } from './support/kustomize';
import { SERVICES } from './support/repo';
import { LOADERS, envReadBy, envReadByMigrations, keysReadBy } from './support/service-env';
import { deployment, podSpecOf, resolveContainerEnv } from './support/workloads';

const K8S_OVERLAYS = ['overlays/dev', 'overlays/prod'];

function k8sEnv(overlay: string, service: string): Record<string, string> {
  const objects = render(overlay);
  const container = deployment(objects, service).spec?.template.spec?.containers[0];
  if (!container) throw new Error(`${overlay}: ${service} has no container`);
  return resolveContainerEnv(objects, container).values;
}

const missing = (read: string[], env: Record<string, string>): string[] => read.filter((key) => env[key] === undefined);

test('reading the keys of a config works: the gateway reads its own port and the shared identity secret', () => {
  expect(keysReadBy(LOADERS.gateway)).toEqual(expect.arrayContaining(['GATEWAY_PORT', 'IDENTITY_TOKEN_SECRET', 'OPS_PORT']));
});

describe.each(SERVICES)('%s', (service) => {
  test('docker-compose.yml sets every variable it reads, with values its loadConfig accepts', () => {
    const env = composeEnv(loadCompose().services[service] ?? {});
    expect(missing(envReadBy(service), env)).toEqual([]);
    expect(() => LOADERS[service](env)).not.toThrow();
  });

  test.each(K8S_OVERLAYS)('k8s/%s sets every variable it reads, with values its loadConfig accepts', (overlay) => {
    const env = k8sEnv(overlay, service);
    expect(missing(envReadBy(service), env)).toEqual([]);
    expect(env.NODE_ENV).toBe('production');
    // Production refuses the built-in development secrets, so this also shows none of them is configured.
    expect(() => LOADERS[service](env)).not.toThrow();
  });
});

test('the migrations get what scripts/migrate-all.js reads, in compose and in the k8s Job', () => {
  const keys = envReadByMigrations();
  expect(keys).toEqual(['DATABASE_URL', 'LOG_LEVEL']);
  expect(missing(keys, composeEnv(loadCompose().services.migrate ?? {}))).toEqual([]);
  for (const overlay of ['overlays/dev', 'overlays/prod/migrate']) {
    const objects = render(overlay);
    const job = objects.find((o) => o.kind === 'Job');
    if (!job) throw new Error(`${overlay}: no Job`);
    const container = podSpecOf(job).containers[0];
    if (!container) throw new Error(`${overlay}: the Job has no container`);
    expect(missing(keys, resolveContainerEnv(objects, container).values)).toEqual([]);
  }
});
