import { parse } from 'yaml';
import { readText } from './repo';

export interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string; target?: string } | string;
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test?: string[] | string; disable?: boolean };
  ports?: (string | number)[];
  restart?: string;
  entrypoint?: string[] | string;
  volumes?: string[];
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  [key: string]: unknown;
}

/** docker-compose.yml as Compose reads it: YAML anchors and `<<` merge keys resolved. */
export function loadCompose(): ComposeFile {
  return parse(readText('docker-compose.yml'), { merge: true }) as ComposeFile;
}

/** A service's environment as strings, the way the container sees it. */
export function composeEnv(service: ComposeService): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  }
  return Object.fromEntries(
    Object.entries(env)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, String(v)]),
  );
}

export function dependsOn(service: ComposeService): Record<string, string> {
  const deps = service.depends_on ?? {};
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((d) => [d, 'service_started']));
  return Object.fromEntries(Object.entries(deps).map(([name, d]) => [name, d.condition]));
}

/** A service's bind mounts of files in the repository (`./path:/in/container[:ro]`), as repository paths by where they are mounted. */
export function bindMounts(service: ComposeService): Record<string, string> {
  return Object.fromEntries(
    (service.volumes ?? [])
      .filter((v) => v.startsWith('./'))
      .map((v) => {
        const [host = '', container = ''] = v.split(':');
        return [container, host.slice(2)];
      }),
  );
}
