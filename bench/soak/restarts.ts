import { sleep, type Clock } from './clock';
import type { Cluster, ProcessLife, Replica } from './cluster';
import type { Gateways } from './gateways';
import type { Recorder } from './recorder';
import type { SoakSettings } from './settings';
import type { ServiceName } from './setup';

export interface RestartRecord {
  label: string;
  old: ProcessLife;
  next: ProcessLife;
  /** When the gateway left the rotation (drain mode), before its SIGTERM. */
  outOfRotationAt?: number;
}

const ORDER: ServiceName[] = ['gateway', 'links', 'shops', 'notifier'];
/** Restarts fall between these fractions of the run: a steady start before, and a last stretch after to judge memory and latency. */
const FIRST_AT = 0.15;
const LAST_AT = 0.65;

/**
 * Rolling restarts, one replica at a time: SIGTERM, wait for the exit, start it again, wait until it is
 * ready, then the next; every service in turn (one cycle per three minutes of run). In drain mode a
 * gateway first leaves the generator's rotation and the preStop pause passes, as in the Kubernetes deployment.
 */
export async function rollingRestarts(o: {
  cluster: Cluster;
  gateways: Gateways;
  recorder: Recorder;
  clock: Clock;
  settings: SoakSettings;
  stopped: () => boolean;
}): Promise<RestartRecord[]> {
  const { cluster, gateways, recorder, clock, settings } = o;
  const runMs = settings.seconds * 1000;
  const cycles = Math.max(1, Math.round(settings.seconds / 180));
  const plan: Replica[] = [];
  for (let c = 0; c < cycles; c++) for (const service of ORDER) plan.push(...cluster.of(service));
  const spacing = ((LAST_AT - FIRST_AT) * runMs) / plan.length;
  const records: RestartRecord[] = [];
  for (const [k, replica] of plan.entries()) {
    await sleep(FIRST_AT * runMs + k * spacing - clock.now());
    // Never into the last stretch: it is there to see the system settle.
    if (o.stopped() || clock.now() > (LAST_AT + 0.1) * runMs) break;
    const old = replica.current;
    const record: Partial<RestartRecord> = { label: replica.label, old };
    const isGateway = replica.service === 'gateway';
    if (isGateway && settings.balancer === 'drain') {
      gateways.remove(replica.index - 1);
      record.outOfRotationAt = clock.now();
      recorder.event(`${replica.label} out of rotation`);
      await sleep(settings.preStopMs);
    }
    recorder.event(`${replica.label} SIGTERM`);
    const next = await cluster.restart(replica);
    recorder.event(`${replica.label} ready (pid ${next.pid})`);
    if (isGateway) gateways.add(replica.index - 1);
    records.push({ ...record, next } as RestartRecord);
  }
  return records;
}
