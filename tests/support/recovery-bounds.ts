import { loadConfig as linksConfig } from '@pl/links/testing';
import { loadConfig as notifierConfig } from '@pl/notifier/testing';
import { SYSTEM_TIMEOUT_ENV } from './system';

/** kafkajs's consumer `rebalanceTimeout`: libs/bus sets none, so its default is what a group waits at most. */
const KAFKA_REBALANCE_TIMEOUT_MS = 60_000;

/**
 * What a step's own work takes at most beside its waits (a process start, a publish, a few statements) on a
 * machine busy with other work: a fresh `.ci/run` took 2.4× as long there as on a quiet one, and the slowest
 * such step seen quiet was about 4 s.
 */
const BUSY_MACHINE_WORK_MS = 10_000;

/** How long each recovery may take, from the time-outs the system runs with. */
export interface RecoveryBounds {
  /**
   * A consumer joining a group that a killed member still belongs to: the member's session runs out, then the
   * rebalance that drops it (the first webhook of a fresh system, a replacement notifier's first message).
   */
  groupJoinMs: number;
  /** A delivery a killed notifier claimed is free once its lease runs out, then sent within the webhook time-out. */
  leaseTakeoverMs: number;
  /** An event a killed writer left queued: the relay's poll takes it once older than the publish time-out. */
  relayTakeoverMs: number;
  /** The longest of the above: a bound for any one step of a recovery. */
  stepMs: number;
}

/** The bounds for a system run with SYSTEM_TIMEOUT_ENV and `env` over it (the services' defaults for the rest). */
export function recoveryBounds(env: Record<string, string> = {}): RecoveryBounds {
  const all = { ...SYSTEM_TIMEOUT_ENV, ...env };
  const links = linksConfig(all);
  const notifier = notifierConfig(all);
  const groupJoinMs = notifier.KAFKA_SESSION_TIMEOUT_MS + KAFKA_REBALANCE_TIMEOUT_MS + BUSY_MACHINE_WORK_MS;
  const leaseTakeoverMs = notifier.WEBHOOK_LEASE_MS + notifier.WEBHOOK_TIMEOUT_MS + notifier.NATS_REQUEST_TIMEOUT_MS + BUSY_MACHINE_WORK_MS;
  const relayTakeoverMs = links.OUTBOX_PUBLISH_TIMEOUT_MS + links.OUTBOX_POLL_INTERVAL_MS + links.OUTBOX_PUBLISH_TIMEOUT_MS + BUSY_MACHINE_WORK_MS;
  return { groupJoinMs, leaseTakeoverMs, relayTakeoverMs, stepMs: Math.max(groupJoinMs, leaseTakeoverMs, relayTakeoverMs) };
}
