/**
 * `npm run soak`: minutes of steady mixed traffic (create / get / list / cancel / pay) through two gateways
 * while every service is restarted in turn, replica by replica. Prints errors by status, p50/p99 per window,
 * RSS per process and what happened to every payment's webhook, then a verdict; exits 1 on a FAIL.
 * Not part of `npm test`. Settings (environment): SOAK_RATE (40/s), SOAK_SECONDS (180), SOAK_MIX,
 * SOAK_BALANCER (drain | blind), SOAK_PRESTOP_MS (5000), SOAK_RESTARTS (on | off), SOAK_WINDOW_SECONDS (10),
 * SOAK_DB_POOL_MAX (4), SOAK_LOG_LEVEL (info), SOAK_SKIP_BUILD=1, SOAK_ENV_<NAME>=value (passed to every service as <NAME>). docs/soak.md explains the method and how to read the report.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { ADMIN_DATABASE_URL, freePort, uniqueNamespace } from '@pl/testing';
import { runBench, type Lifecycle } from './lib/lifecycle';
import { percentile } from './lib/stats';
import { serviceEnvironment } from './lib/system';
import { awaitWebhooks, checkStates } from './soak/checks';
import { Clock } from './soak/clock';
import { Cluster } from './soak/cluster';
import { Gateways } from './soak/gateways';
import { Load } from './soak/load';
import { PgConnections } from './soak/pg-connections';
import { seedMerchants, type SoakMerchant } from './soak/merchants';
import { isExpected, Recorder } from './soak/recorder';
import { renderReport } from './soak/report';
import { rollingRestarts, type RestartRecord } from './soak/restarts';
import { loadSettings } from './soak/settings';
import { build, createSoakDatabase, ensureLocalDeps, ROOT } from './soak/setup';
import { fmtMs } from './soak/table';
import { WebhookSink } from './soak/webhook-sink';

const MEMORY_SAMPLE_MS = 2000;
const WEBHOOK_WAIT_MS = 60_000;
const PRIMED_LINKS_PER_MERCHANT = 5;
const KEPT_RUNS = 5;

/** Every figure behind the report, for a closer look (`raw.json` beside the logs). */
const rawFigures = (recorder: Recorder, cluster: Cluster, sink: WebhookSink, paidAt: ReadonlyMap<string, number>) => ({
  samples: recorder.samples,
  events: recorder.events,
  probes: recorder.probes,
  processes: cluster.replicas.flatMap((r) => r.lives.map(({ child: _child, exited: _exited, isDead: _isDead, ...life }) => life)),
  webhooks: sink.received,
  paidAt: Object.fromEntries(paidAt),
});

async function login(gateways: Gateways, m: SoakMerchant): Promise<void> {
  const res = await gateways.send('POST', '/api/v1/auth/login', {}, JSON.stringify({ email: m.email, password: m.password }));
  if (res.status !== 200 || !res.body) throw new Error(`login failed: ${res.status ?? res.error} ${res.body ?? ''}`);
  m.session = (JSON.parse(res.body) as { session_token: string }).session_token;
}

async function main(life: Lifecycle): Promise<number> {
  const { progress } = life;
  const settings = loadSettings();
  const clock = new Clock();
  progress('local dependencies');
  const kafkaBrokers = ensureLocalDeps();
  if (!settings.skipBuild) {
    progress('npm run build');
    build(progress);
  }
  const runsDir = join(ROOT, '.local', 'soak');
  const logDir = join(runsDir, new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(logDir, { recursive: true });
  // The last few runs are kept for a closer look; older ones go.
  for (const old of readdirSync(runsDir).sort().slice(0, -KEPT_RUNS)) rmSync(join(runsDir, old), { recursive: true, force: true });

  const database = await createSoakDatabase();
  life.defer(() => database.drop());
  progress(`database ${database.name}`);
  const connections = await PgConnections.open(ADMIN_DATABASE_URL, database.name);
  life.defer(() => connections.close());
  // Eight pools, one LISTEN per links and shops process, the soak's own checks.
  const needed = 8 * settings.dbPoolMax + 6;
  const free = connections.result().maxConnections - (await connections.inUse());
  if (free < needed)
    progress(`WARNING: Postgres has ${free} free connections and the soak may take ${needed}: expect 503s (too many clients), for others too`);
  const webhookSecret = `whsec-soak-${randomBytes(8).toString('hex')}`;
  const sink = await WebhookSink.start(webhookSecret, clock);
  life.defer(() => sink.close());
  const namespace = uniqueNamespace('soak');
  const gatewayPorts: [number, number] = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    ...serviceEnvironment({ databaseUrl: database.url, kafkaBrokers, namespace, publicBaseUrl: `http://127.0.0.1:${gatewayPorts[0]}` }),
    LOG_LEVEL: settings.logLevel,
    DATABASE_POOL_MAX: String(settings.dbPoolMax),
    // The soak's webhook receiver listens on 127.0.0.1.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...settings.serviceEnv,
  };
  const merchants = await seedMerchants({
    databaseUrl: database.url,
    webhookSecretKey: env.WEBHOOK_SECRET_KEY!,
    webhookUrl: sink.url,
    webhookSecret,
    count: settings.merchants,
  });

  progress(`starting 2 × shops, links, notifier, gateway (namespace ${namespace}, logs in ${logDir})`);
  const cluster = new Cluster(env, logDir, clock, gatewayPorts);
  const gateways = new Gateways(gatewayPorts);
  let stopped = false;
  const recorder = new Recorder(clock);
  const load = new Load({ gateways, merchants, recorder, clock, settings, providerSecret: env.PROVIDER_SANDBOX_SECRET! });
  life.onInterrupt(() => {
    stopped = true;
    load.stop();
  });
  life.defer(async () => {
    progress('stopping the services');
    await cluster.stopAll();
    gateways.close();
  });
  await cluster.start();

  for (const m of merchants) await login(gateways, m);
  await load.prime(PRIMED_LINKS_PER_MERCHANT);
  const machineLoadStart = loadavg()[0] ?? NaN;
  progress(`load: ${settings.rate} operations/s for ${settings.seconds} s`);

  cluster.rebase(clock.reset());
  const memoryTimer = setInterval(() => {
    cluster.sampleMemory();
    connections.sample();
  }, MEMORY_SAMPLE_MS);
  cluster.sampleMemory();
  let seen = 0;
  const windowTimer = setInterval(() => {
    const probe = recorder.probe();
    const fresh = recorder.samples.slice(seen);
    seen = recorder.samples.length;
    const ms = fresh.map((s) => s.ms).sort((a, b) => a - b);
    progress(
      `t=${(probe.end / 1000).toFixed(0)}s ${fresh.length} requests, ${fresh.filter((s) => !isExpected(s)).length} other, p99 ${fmtMs(percentile(ms, 99))} ms, load ${probe.loadavg1.toFixed(1)}`,
    );
  }, settings.windowSeconds * 1000);

  const problems: string[] = [];
  const restarting: Promise<RestartRecord[]> = settings.restarts
    ? rollingRestarts({ cluster, gateways, recorder, clock, settings, stopped: () => stopped }).catch((e: unknown) => {
        problems.push(`restart failed: ${e instanceof Error ? e.message : String(e)}`);
        return [];
      })
    : Promise.resolve([]);
  await load.run(settings.seconds * 1000);
  const restarts = await restarting;
  clearInterval(windowTimer);
  recorder.probe();
  recorder.close();
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a signal may have come during the run; narrowing cannot see it
  if (stopped) throw new Error('interrupted');

  progress('load done; waiting for the last webhooks');
  const merchantIds = merchants.map((m) => m.id);
  const webhookWaitMs = await awaitWebhooks(database.url, merchantIds, sink, WEBHOOK_WAIT_MS);
  cluster.sampleMemory();
  clearInterval(memoryTimer);
  const states = await checkStates(database.url, merchantIds, load.expected);
  const { text, failed } = renderReport({
    settings,
    recorder,
    restarts,
    cluster,
    sink,
    paidAt: load.paidAt,
    substituted: load.substituted,
    states,
    webhookWaitMs,
    machine: { cpus: cpus().length, loadStart: machineLoadStart, loadEnd: loadavg()[0] ?? NaN, postgres: connections.result() },
    logDir,
    problems,
  });
  process.stdout.write(`\n${text}\n`);
  writeFileSync(join(logDir, 'report.txt'), `${text}\n`);
  writeFileSync(join(logDir, 'raw.json'), JSON.stringify(rawFigures(recorder, cluster, sink, load.paidAt)));
  return failed ? 1 : 0;
}

runBench('soak', main);
