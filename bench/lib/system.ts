import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, uniqueNamespace, type TestDatabase } from '@pl/testing';
import type { Lifecycle } from './lifecycle';
import { OtlpSink } from './otlp-sink';
import { startLocalProviderFakes, type LocalProviderFakes } from '@pl/provider-fakes';
import { adopt, spawnLogged, stopProcess, waitUntilReady, type BenchProcess } from './processes';
import { int } from './settings';

export const ROOT = join(__dirname, '..', '..');
/** The services, in the order they start (each needs the ones before it). */
export const SERVICE_NAMES = ['shops', 'links', 'notifier', 'gateway'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const distMain = (name: ServiceName): string => join(ROOT, 'services', name, 'dist', 'main.js');

/** The platform as the bench runs it: one process of each service from dist/, and the two references. */
export interface BenchSystem {
  database: TestDatabase;
  namespace: string;
  kafkaBrokers: string;
  /** Environment every service got (secrets included: the bench signs callbacks and seals shop secrets with them). */
  env: Record<string, string>;
  gatewayUrl: string;
  /** The reference as one process. */
  referenceUrl: string;
  /** The same reference on every core (node:cluster, one worker per core): the monolith a user would run. */
  referenceClusterUrl: string;
  services: Record<ServiceName, BenchProcess>;
  /** Gateway processes beyond `services.gateway`, on the same port (BENCH_GATEWAY_REPLICAS; none by default). */
  gatewayReplicas: BenchProcess[];
  /** Each service's ops port (/metrics, /readyz). */
  opsPorts: Record<ServiceName, number>;
  reference: BenchProcess;
  /** The cluster's primary; its workers are its children. */
  referenceCluster: BenchProcess;
  kafkaMock: BenchProcess | undefined;
  stop(): Promise<void>;
}

/**
 * Gateway processes to run (BENCH_GATEWAY_REPLICAS, default 1): production scales the gateway by replicas, and on one
 * host they share its port (GATEWAY_REUSE_PORT). The links, shops and notifier services stay one process each.
 */
export const gatewayReplicaCount = (): number => int('BENCH_GATEWAY_REPLICAS', 1, 1, 8);

/** See {@link startBenchSystem} for why not `production`. */
const BENCH_NODE_ENV = 'test';

/** The settings that differ from production defaults, and why; printed with the results. */
export const BENCH_OVERRIDES: Record<string, string> = {
  // The limiter still runs (a Redis round trip per request) but never refuses the bench's single key pair.
  RATE_LIMIT_API_KEY_PER_MINUTE: '1000000000',
  // The providers scenario selects from one address (the load process): the per-IP select limit would refuse it.
  RATE_LIMIT_SELECT_PER_IP_PER_MINUTE: '1000000000',
  // The sign-in scenario signs in from one address (the load process): the per-address sign-in limit would refuse it.
  RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '1000000000',
  // ...and signs one user in from 8 connections at once, which no person does: each attempt holds a point of the
  // user's lockout budget until its success gives it back, so the budget still runs (a Redis round trip) but never refuses.
  LOGIN_LOCKOUT_FAILURES: '1000000000',
  // The bench's webhook receivers listen on 127.0.0.1.
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  // The payouts scenario pays out of a credit made a moment before, to a destination added a moment before: both at
  // once (the hold and the cool-down are timers, not work), and from one session (600 a minute would refuse it).
  PAYOUT_HOLD_HOURS: '0',
  PAYOUT_DESTINATION_COOLDOWN_HOURS: '0',
  RATE_LIMIT_SESSION_PER_MINUTE: '1000000000',
};

/** A Kafka-protocol mock of the bench's own (librdkafka's, run by kcat), so its CPU is measured and nobody else's traffic shares it. */
async function startKafkaMock(logDir: string): Promise<{ process: BenchProcess; brokers: string }> {
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, 'kafka-mock.log');
  const fd = openSync(logFile, 'w');
  const child = spawn('kcat', ['-q', '-b', 'mock', '-C', '-t', '_keepalive', '-X', 'test.mock.num.brokers=1'], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const p = adopt('kafka-mock', child, logFile);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    const m = /replaced with (\S+)/.exec(log) ?? /Mock cluster \S+ bootstrap\.servers=(\S+)/.exec(log);
    if (m?.[1]) return { process: p, brokers: m[1] };
    if (p.isDead()) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await stopProcess(p, 1000);
  throw new Error(`the Kafka mock did not start: ${readFileSync(logFile, 'utf8')}`);
}

/** A database of its own (`pl_<prefix>_*`), migrated by the production migration script. */
export async function createMigratedDatabase(prefix: string): Promise<TestDatabase> {
  const database = await createTestDatabase(prefix);
  try {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'migrate-all.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return database;
  } catch (e) {
    await database.drop().catch(() => undefined);
    throw e;
  }
}

const secret = (bytes: number): string => randomBytes(bytes).toString('hex');

/**
 * What every service process of a bench gets (`npm run bench` and its siblings, and the soak's two replicas of each):
 * the local NATS and Redis (BENCH_NATS_URL / NATS_URL, BENCH_REDIS_URL / REDIS_URL), a bus namespace, topic and
 * consumer group of the run's own, and fresh secrets. NODE_ENV is `test`: see {@link startBenchSystem}.
 */
export function serviceEnvironment(o: {
  databaseUrl: string;
  kafkaBrokers: string;
  namespace: string;
  publicBaseUrl: string;
}): Record<string, string> {
  return {
    NODE_ENV: BENCH_NODE_ENV,
    DATABASE_URL: o.databaseUrl,
    NATS_URL: process.env.BENCH_NATS_URL ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    REDIS_URL: process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    BUS_NAMESPACE: o.namespace,
    REDIS_KEY_PREFIX: `${o.namespace}:`,
    IDENTITY_TOKEN_SECRET: secret(32),
    PROVIDER_SANDBOX_SECRET: secret(32),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    KAFKA_BROKERS: o.kafkaBrokers,
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    PAYMENT_EVENTS_TOPIC: `${o.namespace}.payment-events`,
    KAFKA_GROUP_ID: `${o.namespace}-notifier`,
    PUBLIC_BASE_URL: o.publicBaseUrl,
  };
}

/** One process of a service from dist/, its output in `logDir/<label>.log` (`append`: after earlier lives'). */
export const spawnService = (
  label: string,
  service: ServiceName,
  env: Record<string, string>,
  logDir: string,
  options: { append?: boolean; nodeArgs?: string[] } = {},
): BenchProcess => spawnLogged(label, process.execPath, [...(options.nodeArgs ?? []), distMain(service)], env, logDir, ROOT, options.append);

/** A service's readiness probe on its ops port. */
export const readyzUrl = (opsPort: number): string => `http://127.0.0.1:${opsPort}/readyz`;

interface StartOptions {
  otlpEndpoint: string;
  logDir: string;
  /** Settings every service gets on top (the provider fakes' addresses and keys). */
  extraEnv?: Record<string, string>;
}

/**
 * A fresh database (migrated by the production migration script), then shops, links, notifier and
 * gateway from dist/ with fresh secrets, tracing to the bench's sink and production defaults but for
 * {@link BENCH_OVERRIDES}; and the reference, as one process and on every core, with the same tracing and logging.
 *
 * NODE_ENV is `test`, not `production`: in our code it changes only the production-safety refusal (libs/config),
 * which must refuse what a bench needs (webhook receivers on 127.0.0.1, an http address) and crash points (which
 * the bench never arms); Express 5 uses it only for view caching, which no route has. So the figures are those of
 * production code paths.
 */
async function startBenchSystem(options: StartOptions): Promise<BenchSystem> {
  for (const s of SERVICE_NAMES) {
    if (!existsSync(distMain(s))) throw new Error(`${distMain(s)} is missing: run \`npm run build\` first`);
  }
  const database = await createMigratedDatabase('bench');
  const started: BenchProcess[] = [];
  let kafkaMock: BenchProcess | undefined;
  try {
    let kafkaBrokers = process.env.BENCH_KAFKA_BROKERS ?? '';
    if (!kafkaBrokers) {
      const mock = await startKafkaMock(options.logDir);
      kafkaMock = mock.process;
      kafkaBrokers = mock.brokers;
    }
    const namespace = uniqueNamespace('bench');
    const replicas = gatewayReplicaCount();
    const gatewayPort = await freePort();
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const env: Record<string, string> = {
      ...serviceEnvironment({ databaseUrl: database.url, kafkaBrokers, namespace, publicBaseUrl: gatewayUrl }),
      OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint,
      GATEWAY_PORT: String(gatewayPort),
      ...BENCH_OVERRIDES,
      ...options.extraEnv,
      ...serviceEnvOverrides(),
    };
    if (replicas > 1) env.GATEWAY_REUSE_PORT = 'true';
    if (process.env.BENCH_LOG_LEVEL) env.LOG_LEVEL = process.env.BENCH_LOG_LEVEL;
    const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' };

    const opsPorts = {} as Record<ServiceName, number>; // filled as each service first starts
    const services = {} as Record<ServiceName, BenchProcess>;
    // BENCH_CPU_PROFILE=1: each service writes a V8 CPU profile when it stops (open it in Chrome DevTools).
    const profileArgs = (label: string): string[] =>
      process.env.BENCH_CPU_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${join(options.logDir, '..', 'profiles', label)}`] : [];
    /** Runs one process of a service, named `label` in the logs and profiles, and waits until it is ready. */
    const launch = async (label: string, service: ServiceName, opsPort: number): Promise<BenchProcess> => {
      const p = spawnService(label, service, { ...base, ...env, OPS_PORT: String(opsPort) }, options.logDir, { nodeArgs: profileArgs(label) });
      started.push(p);
      await waitUntilReady(p, readyzUrl(opsPort));
      return p;
    };
    const startService = async (name: ServiceName): Promise<void> => {
      // A restart keeps its port; only the first start picks one.
      if (!(name in opsPorts)) opsPorts[name] = await freePort();
      services[name] = await launch(name, name, opsPorts[name]);
    };
    for (const name of SERVICE_NAMES) await startService(name);
    const gatewayReplicas: BenchProcess[] = [];
    for (let i = 2; i <= replicas; i++) gatewayReplicas.push(await launch(`gateway-${i}`, 'gateway', await freePort()));

    const startReference = async (name: string, workers: number): Promise<{ process: BenchProcess; url: string }> => {
      const port = await freePort();
      const p = spawnLogged(
        name,
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'bench', 'reference', 'server.ts')],
        {
          ...base,
          NODE_ENV: BENCH_NODE_ENV,
          DATABASE_URL: database.url,
          REF_PORT: String(port),
          REF_WORKERS: String(workers),
          PUBLIC_BASE_URL: gatewayUrl,
          OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint,
          ...(env.LOG_LEVEL ? { LOG_LEVEL: env.LOG_LEVEL } : {}),
        },
        options.logDir,
        ROOT,
      );
      started.push(p);
      const url = `http://127.0.0.1:${port}`;
      // No credentials: a 401 means it is up and answering.
      await waitUntilReady(p, `${url}/merchant/v1/payment-links`, 60_000, 401);
      return { process: p, url };
    };
    const { process: reference, url: referenceUrl } = await startReference('reference', 1);
    const { process: referenceCluster, url: referenceClusterUrl } = await startReference('reference-cluster', availableParallelism());

    let stopped = false;
    return {
      database,
      namespace,
      kafkaBrokers,
      env,
      gatewayUrl,
      referenceUrl,
      referenceClusterUrl,
      services,
      gatewayReplicas,
      opsPorts,
      reference,
      referenceCluster,
      kafkaMock,
      async stop() {
        if (stopped) return;
        stopped = true;
        await stopProcess(referenceCluster);
        await stopProcess(reference);
        for (const p of gatewayReplicas) await stopProcess(p);
        for (const name of [...SERVICE_NAMES].reverse()) await stopProcess(services[name]);
        if (kafkaMock) await stopProcess(kafkaMock, 2000);
        await database.drop();
      },
    };
  } catch (e) {
    for (const p of started.reverse()) await stopProcess(p, 10_000);
    if (kafkaMock) await stopProcess(kafkaMock, 2000);
    await database.drop().catch(() => undefined);
    throw e;
  }
}

/**
 * How every bench that measures the services as processes starts them: the tracing sink, then {@link startBenchSystem};
 * both are handed to `life`, which stops the system (and drops its database) and then closes the sink at the end.
 */
export async function startBench(
  life: Lifecycle,
  logDir: string,
  options: { providerFakes?: boolean } = {},
): Promise<{ sys: BenchSystem; sink: OtlpSink; fakes: LocalProviderFakes | undefined }> {
  const sink = await OtlpSink.start();
  life.defer(() => sink.close());
  // With the providers scenario, live SBP and crypto go through the real adapters to fakes in this process.
  const fakes = options.providerFakes ? await startLocalProviderFakes() : undefined;
  if (fakes) life.defer(() => fakes.stop());
  const sys = await startBenchSystem({ otlpEndpoint: sink.url, logDir, ...(fakes ? { extraEnv: fakes.env } : {}) });
  life.defer(() => sys.stop());
  if (fakes) fakes.raiffeisen.callbackUrl = `${sys.gatewayUrl}/callbacks/v1/raiffeisen-sbp`;
  return { sys, sink, fakes };
}

/**
 * BENCH_SERVICE_ENV: settings every service gets on top of the bench's own, as a JSON object of strings (for
 * comparing a setting's cost, e.g. `{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE":"64"}` or `{"OTEL_SDK_DISABLED":"true"}`).
 */
function serviceEnvOverrides(): Record<string, string> {
  const raw = process.env.BENCH_SERVICE_ENV;
  if (!raw) return {};
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string'))
    throw new Error('BENCH_SERVICE_ENV must be a JSON object of strings');
  return parsed as Record<string, string>;
}
