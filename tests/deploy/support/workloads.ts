import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { named, ofKind, type K8sObject } from './kustomize';
import { parseEnvFile } from './repo';

/** The example Secret's keys and placeholder values: the only place secret values appear in the repository. */
export const SECRET_EXAMPLE_FILE = 'k8s/overlays/dev/secrets.example.env';
export const SECRET_NAME = 'payment-links-secrets';

export interface ResolvedEnv {
  /** Every variable the container gets, with its value (secrets from the rendered Secret or the example file). */
  values: Record<string, string>;
  /** Secret keys the container references. */
  secretKeys: string[];
}

function secretValues(objects: K8sObject[], name: string): Record<string, string> {
  const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === name) as { data?: Record<string, string> } | undefined;
  // Production renders no Secret (it is created out of band): the example file stands in with the same keys.
  if (!secret) return parseEnvFile(SECRET_EXAMPLE_FILE);
  return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

/** The environment a container would get from its `env` and `envFrom` entries, resolved against the render. */
export function resolveContainerEnv(objects: K8sObject[], container: IContainer): ResolvedEnv {
  const values: Record<string, string> = {};
  const secretKeys: string[] = [];
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) {
      const data = (named(objects, 'ConfigMap', from.configMapRef.name ?? '') as { data?: Record<string, string> }).data ?? {};
      Object.assign(values, data);
    } else if (from.secretRef) {
      const data = secretValues(objects, from.secretRef.name ?? '');
      Object.assign(values, data);
      secretKeys.push(...Object.keys(data));
    }
  }
  for (const entry of container.env ?? []) {
    const ref = entry.valueFrom;
    if (entry.value !== undefined) values[entry.name] = entry.value;
    else if (ref?.secretKeyRef) {
      const data = secretValues(objects, ref.secretKeyRef.name ?? '');
      const value = data[ref.secretKeyRef.key];
      if (value === undefined) throw new Error(`${entry.name}: Secret ${ref.secretKeyRef.name} has no key ${ref.secretKeyRef.key}`);
      values[entry.name] = value;
      secretKeys.push(ref.secretKeyRef.key);
    } else if (ref?.configMapKeyRef) {
      const data = (named(objects, 'ConfigMap', ref.configMapKeyRef.name ?? '') as { data?: Record<string, string> }).data ?? {};
      const value = data[ref.configMapKeyRef.key];
      if (value === undefined) throw new Error(`${entry.name}: ConfigMap ${ref.configMapKeyRef.name} has no key ${ref.configMapKeyRef.key}`);
      values[entry.name] = value;
    } else {
      throw new Error(`${entry.name}: unsupported env source`);
    }
  }
  return { values, secretKeys };
}

export function deployment(objects: K8sObject[], name: string): IDeployment {
  return named(objects, 'Deployment', name) as unknown as IDeployment;
}

export function podSpecOf(object: K8sObject): IPodSpec {
  const spec = (object as unknown as { spec?: { template?: { spec?: IPodSpec } } }).spec?.template?.spec;
  if (!spec) throw new Error(`${object.kind} ${object.metadata.name} has no pod template`);
  return spec;
}

/** Deployments and Jobs: everything that runs pods. */
export const workloads = (objects: K8sObject[]): K8sObject[] => [...ofKind(objects, 'Deployment'), ...ofKind(objects, 'Job')];
