/** The operations the load generator mixes; `pay` is a method selection (every other one) and a provider callback. */
export const OPERATIONS = ['create', 'get', 'list', 'cancel', 'pay'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** How a restarting gateway is taken out of the generator's rotation. */
type BalancerMode = 'drain' | 'blind';

export interface SoakSettings {
  /** Mixed operations started per second, whatever the answers (open loop). */
  rate: number;
  seconds: number;
  mix: Record<Operation, number>;
  windowSeconds: number;
  /** Restart every replica of every service during the run, one at a time. */
  restarts: boolean;
  /**
   * `drain`: as the Kubernetes deployment does it, a gateway leaves the rotation, the preStop pause passes,
   * then it gets SIGTERM. `blind`: SIGTERM straight away while the generator keeps sending to it.
   */
  balancer: BalancerMode;
  preStopMs: number;
  /** Merchants the load is spread over, so each API key pair stays under the production rate limit. */
  merchants: number;
  logLevel: string;
  skipBuild: boolean;
  /** DATABASE_POOL_MAX of every process: eight processes at the default 10 would take most of a shared server. */
  dbPoolMax: number;
  /** SOAK_ENV_<NAME>=value: <NAME>=value for every service, for experiments (KAFKA_SESSION_TIMEOUT_MS…). */
  serviceEnv: Record<string, string>;
}

const number = (name: string, fallback: number, min: number, max: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new Error(`${name} must be a number in ${min}..${max}, got "${raw}"`);
  return n;
};

function parseMix(raw: string): Record<Operation, number> {
  const mix = Object.fromEntries(OPERATIONS.map((op) => [op, 0])) as Record<Operation, number>;
  for (const part of raw.split(',')) {
    const [name, weight] = part.split('=').map((s) => s.trim());
    if (!OPERATIONS.includes(name as Operation) || !/^\d+$/.test(weight ?? '')) {
      throw new Error(`SOAK_MIX: "${part}" is not <${OPERATIONS.join('|')}>=<integer weight>`);
    }
    mix[name as Operation] = Number(weight);
  }
  if (mix.create <= mix.cancel + mix.pay) throw new Error('SOAK_MIX: creates must outnumber cancels + pays, or the pool of pending links runs dry');
  return mix;
}

/** The API-key pair limit is 1200/min; keep each merchant at about half of it. */
const MERCHANT_REQUESTS_PER_SECOND = 10;

export function loadSettings(): SoakSettings {
  const rate = number('SOAK_RATE', 40, 1, 1000);
  const balancer = process.env.SOAK_BALANCER ?? 'drain';
  if (balancer !== 'drain' && balancer !== 'blind') throw new Error(`SOAK_BALANCER must be drain or blind, got "${balancer}"`);
  return {
    rate,
    seconds: number('SOAK_SECONDS', 180, 20, 86_400),
    mix: parseMix(process.env.SOAK_MIX ?? 'create=35,get=25,list=15,cancel=10,pay=15'),
    windowSeconds: number('SOAK_WINDOW_SECONDS', 10, 1, 600),
    restarts: (process.env.SOAK_RESTARTS ?? 'on') !== 'off',
    balancer,
    preStopMs: number('SOAK_PRESTOP_MS', 5000, 0, 60_000),
    merchants: Math.max(2, Math.ceil(rate / MERCHANT_REQUESTS_PER_SECOND)),
    logLevel: process.env.SOAK_LOG_LEVEL ?? 'info',
    skipBuild: process.env.SOAK_SKIP_BUILD === '1',
    dbPoolMax: number('SOAK_DB_POOL_MAX', 4, 1, 100),
    serviceEnv: Object.fromEntries(
      Object.entries(process.env).flatMap(([k, v]) => (k.startsWith('SOAK_ENV_') && v !== undefined ? [[k.slice('SOAK_ENV_'.length), v]] : [])),
    ),
  };
}
