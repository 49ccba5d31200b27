// The kustomize overlays, rendered for real with `kubectl kustomize` and checked offline: every object against
// the Kubernetes schemas (kubernetes-models), then the rules this deployment promises (docs/deploy.md).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IService } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';
import { findKubectl, ofKind, render, type K8sObject } from './support/kustomize';
import { PrometheusRule, type PrometheusRuleObject } from './support/prometheus-rule';
import { ServiceMonitor, type ServiceMonitorObject } from './support/service-monitor';
import { ROOT, SERVICES, parseEnvFile, readText } from './support/repo';
import { SECRET_EXAMPLE_FILE, SECRET_NAME, deployment, podSpecOf, resolveContainerEnv, workloads } from './support/workloads';

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: never) => Validatable;

/** apiVersion/kind → its kubernetes-models class. A kind missing here fails the test rather than go unchecked. */
const MODELS: Record<string, ModelClass> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  // A CRD of the Prometheus Operator: checked against a mirror of its schema (support/prometheus-rule.ts).
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

function validateAgainstSchema(object: K8sObject): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model) throw new Error(`${object.apiVersion} ${object.kind} ${object.metadata.name}: no schema mapped for this kind`);
  try {
    new Model(object as never).validate();
  } catch (e) {
    throw new Error(`${object.kind} ${object.metadata.name} fails the Kubernetes schema: ${e instanceof Error ? e.message : String(e)}`, {
      cause: e,
    });
  }
}

const OVERLAYS = [
  { path: 'overlays/dev', namespace: 'payment-links-dev' },
  { path: 'overlays/prod', namespace: 'payment-links' },
  { path: 'overlays/prod/migrate', namespace: 'payment-links' },
];
const OPS_PORTS: Record<string, number> = { gateway: 9100, links: 9101, shops: 9102, notifier: 9103 };
const AUTOSCALED = ['gateway', 'links', 'notifier'];
const appOverlays = OVERLAYS.filter((o) => o.path !== 'overlays/prod/migrate');

test('kubectl is installed, since the overlays are rendered with `kubectl kustomize`', () => {
  expect(findKubectl()).toMatch(/kubectl$/);
});

test('the schema check rejects a Deployment without a selector, so a pass means the schemas ran', () => {
  const broken = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'broken' }, spec: { template: {} } } as unknown as K8sObject;
  expect(() => validateAgainstSchema(broken)).toThrow(/selector/);
});

describe.each(OVERLAYS)('k8s/$path', ({ path, namespace }) => {
  test('every rendered object is valid against the Kubernetes schemas', () => {
    const objects = render(path);
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) validateAgainstSchema(object);
  });

  test('every namespaced object lands in the overlay namespace', () => {
    for (const object of render(path)) {
      if (object.kind === 'Namespace') expect(object.metadata.name).toBe(namespace);
      else
        expect(`${object.kind}/${object.metadata.name}: ${object.metadata.namespace}`).toBe(`${object.kind}/${object.metadata.name}: ${namespace}`);
    }
  });

  test('every pod runs non-root, seccomp RuntimeDefault, read-only root, no privilege escalation, all capabilities dropped, with resources', () => {
    for (const workload of workloads(render(path))) {
      const pod = podSpecOf(workload);
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of pod.containers) {
        const where = `${workload.metadata.name}/${c.name}`;
        expect({ where, ...c.securityContext }).toMatchObject({
          where,
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        });
        expect(c.resources?.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
        expect(c.resources?.limits).toEqual(expect.objectContaining({ memory: expect.any(String) }));
        expect(c.image).toMatch(/:[\w.-]+$/);
      }
    }
  });
});

describe.each(appOverlays)('k8s/$path services', ({ path }) => {
  test.each(SERVICES)('%s probes /healthz and /readyz on its ops port, which matches OPS_PORT', (name) => {
    const objects = render(path);
    const container = deployment(objects, name).spec?.template.spec?.containers[0];
    if (!container) throw new Error(`${name} has no container`);
    const ops = container.ports?.find((p) => p.name === 'ops');
    expect(ops?.containerPort).toBe(OPS_PORTS[name]);
    expect(resolveContainerEnv(objects, container).values.OPS_PORT).toBe(String(OPS_PORTS[name]));
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'ops' });
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'ops' });
    if (name === 'gateway') {
      const http = container.ports?.find((p) => p.name === 'http');
      expect(String(http?.containerPort)).toBe(resolveContainerEnv(objects, container).values.GATEWAY_PORT);
    }
  });

  test('each service has a Service selecting its pods on named ports it declares, and a PodDisruptionBudget', () => {
    const objects = render(path);
    for (const name of SERVICES) {
      const pod = deployment(objects, name).spec?.template;
      const service = ofKind<IService>(objects, 'Service').find((s) => s.metadata?.name === name);
      expect(service?.spec?.selector).toEqual({ 'app.kubernetes.io/name': name });
      expect(pod?.metadata?.labels).toMatchObject(service?.spec?.selector ?? {});
      const declared = (pod?.spec?.containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => p.name));
      for (const port of service?.spec?.ports ?? []) expect(declared).toContain(port.targetPort);
      const pdb = ofKind<IPodDisruptionBudget>(objects, 'PodDisruptionBudget').find((p) => p.metadata?.name === name);
      expect(pdb?.spec?.selector?.matchLabels).toEqual({ 'app.kubernetes.io/name': name });
    }
  });

  test('gateway, links and notifier have autoscalers on their Deployments, which leave the replica count to them', () => {
    const objects = render(path);
    const hpas = ofKind<IHorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec?.scaleTargetRef.name).sort()).toEqual([...AUTOSCALED].sort());
    for (const hpa of hpas) {
      expect(hpa.spec?.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
      expect(deployment(objects, hpa.spec?.scaleTargetRef.name ?? '').spec?.replicas).toBeUndefined();
      expect(hpa.spec?.maxReplicas).toBeGreaterThanOrEqual(hpa.spec?.minReplicas ?? 1);
    }
  });

  test('network policies deny ingress by default and let outside traffic reach only the gateway HTTP port', () => {
    const policies = ofKind<INetworkPolicy>(render(path), 'NetworkPolicy');
    const denyAll = policies.find((p) => Object.keys(p.spec?.podSelector ?? {}).length === 0 && p.spec?.policyTypes?.includes('Ingress'));
    expect(denyAll?.spec?.ingress ?? []).toEqual([]);
    for (const policy of policies) {
      for (const rule of policy.spec?.ingress ?? []) {
        const fromAnywhere = !rule.from || rule.from.length === 0 || rule.from.some((peer) => peer.ipBlock?.cidr === '0.0.0.0/0');
        if (!fromAnywhere) continue;
        expect(policy.spec?.podSelector?.matchLabels).toEqual({ 'app.kubernetes.io/name': 'gateway' });
        expect(rule.ports).toEqual([{ protocol: 'TCP', port: 8080 }]);
      }
    }
  });

  test('services reach NATS only at the NATS pods, and only the notifier reaches the internet, on 80 and 443', () => {
    const policies = ofKind<INetworkPolicy>(render(path), 'NetworkPolicy');
    const egress = policies.flatMap((p) => (p.spec?.egress ?? []).map((rule) => ({ policy: p, rule })));
    const nats = egress.filter(({ rule }) => rule.ports?.some((port) => port.port === 4222));
    expect(nats.length).toBeGreaterThan(0);
    for (const { rule } of nats) expect(rule.to?.every((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'nats')).toBe(true);
    const web = egress.filter(({ rule }) => rule.ports?.some((port) => port.port === 443 || port.port === 80));
    expect(web.map(({ policy }) => policy.spec?.podSelector?.matchLabels)).toEqual([{ 'app.kubernetes.io/name': 'notifier' }]);
    expect(web[0]?.rule.ports?.map((port) => port.port).sort()).toEqual([443, 80]);
  });
});

test('the PrometheusRule check rejects a rule without an expression and a bad duration, so a pass means it ran', () => {
  const broken = (rule: object) =>
    ({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: { name: 'broken' },
      spec: { groups: [{ name: 'g', rules: [rule] }] },
    }) as unknown as K8sObject;
  expect(() => validateAgainstSchema(broken({ alert: 'NoExpr' }))).toThrow(/expr/);
  expect(() => validateAgainstSchema(broken({ alert: 'BadFor', expr: 'up == 0', for: '5 minutes' }))).toThrow(/duration/);
  expect(() => validateAgainstSchema(broken({ alert: 'Fine', expr: 'up == 0', for: '5m' }))).not.toThrow();
});

describe.each(appOverlays)('k8s/$path alerts', ({ path }) => {
  /** GitHub's anchor of a Markdown heading (lower case, punctuation dropped, spaces to hyphens). */
  const anchorOf = (heading: string): string =>
    heading
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, '')
      .replace(/ /g, '-');
  const operationsAnchors = new Set(
    readText('docs/operations.md')
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => anchorOf(line.replace(/^#+ /, ''))),
  );

  test('every alert has a severity and a runbook_url to a section of docs/operations.md that exists', () => {
    // Recording rules (the SLO ratios) have neither.
    const alerts = ofKind<PrometheusRuleObject>(render(path), 'PrometheusRule').flatMap((r) =>
      r.spec.groups.flatMap((g) => g.rules.filter((rule) => rule.alert)),
    );
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) {
      expect(alert.labels?.severity).toMatch(/^(warning|critical)$/);
      const anchor = /\/docs\/operations\.md#([a-z0-9-]+)$/.exec(alert.annotations?.runbook_url ?? '')?.[1];
      expect({ alert: alert.alert, anchor: anchor !== undefined && operationsAnchors.has(anchor) }).toEqual({ alert: alert.alert, anchor: true });
    }
  });

  test("a late payment alerts: LatePaymentReceived fires on any increase of the links service's late_payments_total", () => {
    const alerts = ofKind<PrometheusRuleObject>(render(path), 'PrometheusRule').flatMap((r) => r.spec.groups.flatMap((g) => g.rules));
    const late = alerts.find((a) => a.alert === 'LatePaymentReceived');
    expect(late?.expr).toMatch(/increase\(late_payments_total\{app="links"\}\[\w+\]\)\) > 0$/);
    expect(late?.annotations?.runbook_url).toMatch(/#late-payments$/);
  });
});

describe('secrets', () => {
  test('prod references payment-links-secrets by name and renders no Secret', () => {
    const objects = render('overlays/prod');
    expect(ofKind(objects, 'Secret')).toEqual([]);
    const refs = workloads(objects).flatMap((w) => podSpecOf(w).containers.flatMap((c) => c.env ?? []));
    const names = new Set(refs.filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.valueFrom?.secretKeyRef?.name));
    expect([...names]).toEqual([SECRET_NAME]);
  });

  test('every secret key a workload references is one of the documented keys in the example file', () => {
    const documented = Object.keys(parseEnvFile(SECRET_EXAMPLE_FILE)).sort();
    expect(documented).toEqual([
      'DATABASE_URL',
      'HELEKET_PAYMENT_KEY',
      'HELEKET_PAYOUT_KEY',
      'IDENTITY_TOKEN_SECRET',
      'PROVIDER_SANDBOX_SECRET',
      'RAIFFEISEN_SECRET_KEY',
      'SMTP_URL',
      'TWO_FACTOR_SECRET_KEY',
      'WEBHOOK_SECRET_KEY',
    ]);
    for (const path of OVERLAYS.map((o) => o.path)) {
      const objects = render(path);
      for (const w of workloads(objects)) {
        for (const c of podSpecOf(w).containers) for (const key of resolveContainerEnv(objects, c).secretKeys) expect(documented).toContain(key);
      }
    }
  });

  test('the only committed secret values are placeholders marked as examples (dev render and every file under k8s/)', () => {
    const devSecrets = ofKind<{ data?: Record<string, string> }>(render('overlays/dev'), 'Secret');
    expect(devSecrets).toHaveLength(1);
    for (const [key, value] of Object.entries(devSecrets[0]?.data ?? {})) {
      const text = Buffer.from(value, 'base64').toString('utf8');
      // The secret-box keys are base64 of their example text.
      const decoded = key === 'WEBHOOK_SECRET_KEY' || key === 'TWO_FACTOR_SECRET_KEY' ? Buffer.from(text, 'base64').toString('utf8') : text;
      expect(`${key}=${decoded}`).toMatch(/example-only/);
    }
    const files = (dir: string): string[] =>
      readdirSync(join(ROOT, dir)).flatMap((n) => (statSync(join(ROOT, dir, n)).isDirectory() ? files(`${dir}/${n}`) : [`${dir}/${n}`]));
    for (const file of files('k8s').filter((f) => /\.ya?ml$/.test(f))) {
      for (const doc of parseAllDocuments(readText(file))) {
        const object = doc.toJS() as {
          kind?: string;
          data?: object;
          stringData?: object;
          secretGenerator?: { envs?: string[]; literals?: string[]; files?: string[] }[];
        } | null;
        if (object?.kind === 'Secret') expect(`${file}: ${JSON.stringify({ ...object.data, ...object.stringData })}`).toMatch(/^[^:]+: \{\}$/);
        for (const generator of object?.secretGenerator ?? []) {
          expect(generator.files ?? []).toEqual([]);
          for (const literal of generator.literals ?? []) expect(literal).toMatch(/example-only/);
          for (const env of generator.envs ?? []) {
            expect(env).toMatch(/\.example\.env$/);
            expect(file).toMatch(/^k8s\/overlays\/dev\//);
          }
        }
      }
    }
  });
});

describe('migrations Job', () => {
  test('prod runs it from its own kustomization (applied and awaited first), with the same image tag as the services', () => {
    expect(ofKind(render('overlays/prod'), 'Job')).toEqual([]);
    const [job] = ofKind(render('overlays/prod/migrate'), 'Job');
    if (!job) throw new Error('no Job in k8s/overlays/prod/migrate');
    const image = podSpecOf(job).containers[0]?.image ?? '';
    expect(image).toMatch(/migrate:/);
    const tag = (i: string): string => i.slice(i.lastIndexOf(':') + 1);
    const serviceTags = SERVICES.map((s) => tag(deployment(render('overlays/prod'), s).spec?.template.spec?.containers[0]?.image ?? ''));
    expect(new Set([...serviceTags, tag(image)])).toEqual(new Set([tag(image)]));
    expect(tag(image)).not.toMatch(/^(latest|dev)$/);
    expect(podSpecOf(job).restartPolicy).toBe('Never');
  });

  test('dev applies it together with the services', () => {
    expect(ofKind(render('overlays/dev'), 'Job').map((j) => j.metadata.name)).toEqual(['payment-links-migrate']);
  });
});

describe.each(appOverlays)('k8s/$path placement and way in', ({ path }) => {
  test('every Deployment spreads its pods over zones and nodes (per ReplicaSet); prod requires the zone spread', () => {
    for (const name of SERVICES) {
      const constraints = deployment(render(path), name).spec?.template.spec?.topologySpreadConstraints ?? [];
      const byKey = new Map(constraints.map((c) => [c.topologyKey, c]));
      for (const key of ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']) {
        expect({ name, key, ...byKey.get(key) }).toMatchObject({
          name,
          key,
          maxSkew: 1,
          labelSelector: { matchLabels: { 'app.kubernetes.io/name': name } },
          matchLabelKeys: ['pod-template-hash'],
        });
      }
      const zone = byKey.get('topology.kubernetes.io/zone');
      expect({ name, when: zone?.whenUnsatisfiable }).toEqual({ name, when: path === 'overlays/prod' ? 'DoNotSchedule' : 'ScheduleAnyway' });
      if (path === 'overlays/prod') expect(zone?.nodeTaintsPolicy).toBe('Honor');
      expect(byKey.get('kubernetes.io/hostname')?.whenUnsatisfiable).toBe('ScheduleAnyway');
    }
  });

  test("an Ingress serves PUBLIC_BASE_URL's host over TLS, to the gateway Service's http port", () => {
    const objects = render(path);
    const ingresses = ofKind<IIngress>(objects, 'Ingress');
    expect(ingresses).toHaveLength(1);
    const ingress = ingresses[0]!;
    const gateway = deployment(objects, 'gateway').spec?.template.spec?.containers[0];
    if (!gateway) throw new Error('gateway has no container');
    const publicUrl = new URL(resolveContainerEnv(objects, gateway).values.PUBLIC_BASE_URL ?? '');
    expect(publicUrl.protocol).toBe('https:');
    expect(ingress.spec?.rules?.map((r) => r.host)).toEqual([publicUrl.hostname]);
    expect(ingress.spec?.tls).toEqual([{ hosts: [publicUrl.hostname], secretName: expect.any(String) }]);
    const backends = (ingress.spec?.rules ?? []).flatMap((r) => r.http?.paths ?? []);
    expect(backends.map((p) => [p.path, p.backend.service])).toEqual([['/', { name: 'gateway', port: { name: 'http' } }]]);
    const service = ofKind<IService>(objects, 'Service').find((s) => s.metadata?.name === 'gateway');
    expect(service?.spec?.ports?.map((p) => p.name)).toContain('http');
    expect(ingress.metadata?.annotations?.['nginx.ingress.kubernetes.io/force-ssl-redirect']).toBe('true');
  });

  test('a ServiceMonitor scrapes /metrics on the ops port of each of the four Services', () => {
    const objects = render(path);
    const monitors = ofKind<ServiceMonitorObject>(objects, 'ServiceMonitor');
    expect(monitors).toHaveLength(1);
    const monitor = monitors[0]!;
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'ops', path: '/metrics' })]);
    const selected = ofKind<IService>(objects, 'Service').filter((s) => {
      const labels = s.metadata?.labels ?? {};
      const { matchLabels = {}, matchExpressions = [] } = monitor.spec.selector;
      return (
        Object.entries(matchLabels).every(([k, v]) => labels[k] === v) &&
        matchExpressions.every((e) => (e.operator === 'In' ? (e.values ?? []).includes(labels[e.key] ?? '') : false))
      );
    });
    expect(selected.map((s) => s.metadata?.name).sort()).toEqual([...SERVICES].sort());
    for (const s of selected) expect(s.spec?.ports?.map((p) => p.name)).toContain('ops');
  });
});

describe('sizing (k8s/overlays/prod against docs/deploy.md, "Sizing")', () => {
  const objects = (): K8sObject[] => render('overlays/prod');
  const doc = (): string => readText('docs/deploy.md');
  /** The rows of the first Markdown table whose header starts with `| service |` and names `column`. */
  const table = (column: string): Record<string, string[]> => {
    const lines = doc().split('\n');
    const start = lines.findIndex((l) => l.startsWith('| service |') && l.includes(column));
    if (start < 0) throw new Error(`docs/deploy.md has no table with the column ${column}`);
    const rows: Record<string, string[]> = {};
    for (const line of lines.slice(start + 2)) {
      if (!line.startsWith('|')) break;
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim().replace(/\*\*/g, ''));
      rows[cells[0] ?? ''] = cells.slice(1);
    }
    return rows;
  };
  const number = (text: string | undefined): number => Number((text ?? '').replace(/[^\d.]/g, ''));
  const docValue = (label: RegExp): number => {
    const m = label.exec(doc());
    if (!m?.[1]) throw new Error(`docs/deploy.md does not state ${label.source}`);
    return Number(m[1]);
  };

  /** The most pods a service runs: its autoscaler's maximum or its fixed count, plus the rollout's surge. */
  const podsAtMost = (name: string): { pods: number; surge: number } => {
    const hpa = ofKind<IHorizontalPodAutoscaler>(objects(), 'HorizontalPodAutoscaler').find((h) => h.spec?.scaleTargetRef.name === name);
    const d = deployment(objects(), name);
    const pods = hpa?.spec?.maxReplicas ?? d.spec?.replicas ?? 1;
    const surge = d.spec?.strategy?.rollingUpdate?.maxSurge;
    if (typeof surge !== 'number') throw new Error(`${name}: maxSurge must be a number of pods`);
    return { pods, surge };
  };
  const poolMax = (name: string): number => {
    const container = deployment(objects(), name).spec?.template.spec?.containers[0];
    if (!container) throw new Error(`${name} has no container`);
    return Number(resolveContainerEnv(objects(), container).values.DATABASE_POOL_MAX);
  };
  /** Shops holds one connection of its own per process for LISTEN (shop changes); the others none. */
  const LISTEN_CONNECTIONS: Record<string, number> = { gateway: 0, links: 0, shops: 1, notifier: 0 };

  test('Postgres connections at the autoscalers maxima, during a rollout, fit max_connections minus the reserve', () => {
    const rows = table('DATABASE_POOL_MAX');
    let total = 0;
    for (const name of SERVICES) {
      const { pods, surge } = podsAtMost(name);
      const connections = (pods + surge) * (poolMax(name) + (LISTEN_CONNECTIONS[name] ?? 0));
      // The documented row matches the rendered manifests: pods, surge, pool, LISTEN, connections.
      expect({ name, row: (rows[name] ?? []).map(number) }).toEqual({
        name,
        row: [pods, surge, poolMax(name), LISTEN_CONNECTIONS[name], connections],
      });
      total += connections;
    }
    expect(number(rows.total?.[4])).toBe(total);
    const maxConnections = docValue(/\| `max_connections` \| (\d+) \|/);
    const reserve = docValue(/\| reserved [^|]*\| (\d+) \|/);
    expect(reserve).toBeGreaterThanOrEqual(10);
    expect(total).toBeLessThanOrEqual(maxConnections - reserve);
  });

  test('memory requests cover the measured peak RSS and limits leave at least half as much again', () => {
    const rows = table('peak RSS');
    const mib = (quantity: string | undefined): number => {
      const m = /^(\d+)(Mi|Gi)$/.exec(quantity ?? '');
      if (!m) throw new Error(`not a Mi/Gi quantity: ${quantity}`);
      return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
    };
    for (const name of SERVICES) {
      const resources = deployment(objects(), name).spec?.template.spec?.containers[0]?.resources;
      const [peak, request, limit] = rows[name] ?? [];
      const measured = number(peak);
      expect({ name, measured: measured > 0 }).toEqual({ name, measured: true });
      // The documented request and limit are the manifests' own.
      expect({ name, request: resources?.requests?.memory, limit: resources?.limits?.memory }).toEqual({
        name,
        request: request?.replace(/`/g, ''),
        limit: limit?.replace(/`/g, ''),
      });
      expect({ name, covered: mib(String(resources?.requests?.memory)) >= measured }).toEqual({ name, covered: true });
      expect({ name, headroom: mib(String(resources?.limits?.memory)) >= 1.5 * measured }).toEqual({ name, headroom: true });
    }
  });
});
