import { join } from 'node:path';
import { freePort } from '@pl/testing';
import { rssMiB } from '../lib/cpu';
import { stopProcess, waitUntilReady, type BenchProcess } from '../lib/processes';
import { readyzUrl, spawnService } from '../lib/system';
import type { Clock } from './clock';
import { SERVICE_NAMES, type ServiceName } from './setup';

/** One process of a replica: a replica gets a new one at every restart. */
export interface ProcessLife extends BenchProcess {
  label: string;
  generation: number;
  spawnedAt: number;
  readyAt?: number;
  rssAtReadyMiB?: number;
  /** When SIGTERM was sent, how long the exit took, the code, and the RSS just before. */
  stop?: { at: number; ms: number; code: number | null; killed: boolean; rssMiB: number | undefined };
  /** (clock ms, MiB) every few seconds while it lives. */
  samples: [number, number][];
  /** Set when the soak sends SIGTERM: an exit without it is a crash. */
  stopRequested: boolean;
}

/** A replica before its first process is spawned. */
type NewReplica = Omit<Replica, 'current'> & { current?: ProcessLife };

export interface Replica {
  service: ServiceName;
  /** 1 or 2. */
  index: number;
  label: string;
  opsPort: number;
  /** The public HTTP port (gateway only). */
  httpPort?: number;
  current: ProcessLife;
  lives: ProcessLife[];
}

/** A replica's log file name: one per replica, appended across its restarts. */
const logName = (r: { label: string }): string => r.label.replace('#', '-');

/** Past the services' own 25 s stop bound, then SIGKILL. */
const STOP_TIMEOUT_MS = 35_000;
const READY_TIMEOUT_MS = 90_000;

/**
 * Two replicas of every service from dist/, each a real process with its output in a log file of its own
 * (appended across restarts), on fixed ports so a restarted replica comes back where it was.
 */
export class Cluster {
  readonly replicas: Replica[] = [];
  private stopped = false;

  constructor(
    private readonly env: Record<string, string>,
    private readonly logDir: string,
    private readonly clock: Clock,
    private readonly gatewayPorts: readonly [number, number],
  ) {}

  /** Both replicas of a service at once; services in dependency order (gateway last). */
  async start(): Promise<void> {
    for (const service of SERVICE_NAMES) {
      await Promise.all(
        [1, 2].map(async (index) => {
          const r: NewReplica = {
            service,
            index,
            label: `${service}#${index}`,
            opsPort: await freePort(),
            ...(service === 'gateway' ? { httpPort: this.gatewayPorts[index - 1] } : {}),
            lives: [],
          };
          await this.launch(r);
        }),
      );
    }
  }

  of(service: ServiceName): Replica[] {
    return this.replicas.filter((r) => r.service === service);
  }

  logFile(r: NewReplica): string {
    return join(this.logDir, `${logName(r)}.log`);
  }

  /** Spawns the replica's next process and waits until its /readyz answers 200. */
  private async launch(r: NewReplica): Promise<ProcessLife> {
    const env: Record<string, string> = { ...this.env, OPS_PORT: String(r.opsPort) };
    if (r.httpPort !== undefined) env.GATEWAY_PORT = String(r.httpPort);
    const proc = spawnService(logName(r), r.service, env, this.logDir, { append: true });
    const life: ProcessLife = {
      ...proc,
      label: r.label,
      generation: r.lives.length + 1,
      spawnedAt: this.clock.now(),
      samples: [],
      stopRequested: false,
    };
    r.current = life;
    r.lives.push(life);
    // Listed from its first spawn on, so a failed start is still stopped.
    if (r.lives.length === 1) this.replicas.push(r as Replica);
    await waitUntilReady(life, readyzUrl(r.opsPort), READY_TIMEOUT_MS);
    life.readyAt = this.clock.now();
    life.rssAtReadyMiB = rssMiB(life.pid) ?? undefined;
    return life;
  }

  /** SIGTERM, and SIGKILL after {@link STOP_TIMEOUT_MS}; records how the stop went. */
  private async terminate(life: ProcessLife): Promise<void> {
    if (life.isDead()) return;
    const at = this.clock.now();
    const rss = rssMiB(life.pid) ?? undefined;
    life.stopRequested = true;
    const code = await stopProcess(life, STOP_TIMEOUT_MS);
    life.stop = { at, ms: this.clock.now() - at, code, killed: life.child.signalCode === 'SIGKILL', rssMiB: rss };
  }

  /** Stops the replica's process and starts the next one; resolves once it is ready. */
  async restart(r: Replica): Promise<ProcessLife> {
    await this.terminate(r.current);
    if (this.stopped) throw new Error('the cluster is stopping');
    return this.launch(r);
  }

  /** Moves every time taken so far `delta` ms back, onto a clock that was just reset by that much. */
  rebase(delta: number): void {
    for (const life of this.replicas.flatMap((r) => r.lives)) {
      life.spawnedAt -= delta;
      if (life.readyAt !== undefined) life.readyAt -= delta;
      if (life.stop) life.stop.at -= delta;
      for (const sample of life.samples) sample[0] -= delta;
    }
  }

  /** Samples the RSS of every live process. */
  sampleMemory(): void {
    const t = this.clock.now();
    for (const r of this.replicas) {
      const life = r.current;
      if (life.isDead() || life.readyAt === undefined) continue;
      const mib = rssMiB(life.pid);
      if (mib !== null) life.samples.push([t, mib]);
    }
  }

  /** Replicas whose process died without being told to (a crash). */
  crashed(): ProcessLife[] {
    return this.replicas.flatMap((r) => r.lives).filter((l) => l.isDead() && !l.stopRequested);
  }

  /** Gateways last in, first out: no request is left without a gateway while the back end still runs. */
  async stopAll(): Promise<void> {
    this.stopped = true;
    for (const service of [...SERVICE_NAMES].reverse()) {
      await Promise.all(this.of(service).map((r) => this.terminate(r.current)));
    }
  }
}
