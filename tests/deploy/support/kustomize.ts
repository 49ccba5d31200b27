import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from './repo';

/** A rendered Kubernetes object, as plain data. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** kubectl from KUBECTL or PATH; a clear failure when missing (CI installs it, see docs/deploy.md). */
export function findKubectl(): string {
  const candidates = process.env.KUBECTL ? [process.env.KUBECTL] : (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'kubectl'));
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here; try the next one
    }
  }
  throw new Error(
    'kubectl was not found (looked in KUBECTL and PATH). The Kubernetes manifests are rendered with ' +
      '`kubectl kustomize`; install kubectl >= 1.27 (kustomize v5), e.g. the `kubectl` package from pkgs.k8s.io. ' +
      "Debian's own `kubernetes-client` package is too old (kubectl 1.20, kustomize v2).",
  );
}

const rendered = new Map<string, K8sObject[]>();

/** `kubectl kustomize k8s/<path>`, parsed; cached per path for the test file. */
export function render(path: string): K8sObject[] {
  const cached = rendered.get(path);
  if (cached) return cached;
  const text = execFileSync(findKubectl(), ['kustomize', join(ROOT, 'k8s', path)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const objects = parseAllDocuments(text).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`k8s/${path}: ${doc.errors[0]?.message}`);
    const object = doc.toJS() as K8sObject;
    // kustomize folds long base64 Secret values over several lines; the API server's decoder (Go's base64)
    // skips the line breaks, so the schema check sees the value the way the server reads it.
    if (object.kind === 'Secret' && object.data) {
      const data = object.data as Record<string, string>;
      for (const key of Object.keys(data)) data[key] = (data[key] ?? '').replace(/\s+/g, '');
    }
    return object;
  });
  rendered.set(path, objects);
  return objects;
}

export const ofKind = <T = K8sObject>(objects: K8sObject[], kind: string): T[] => objects.filter((o) => o.kind === kind) as T[];

export function named(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the rendered manifests`);
  return found;
}
