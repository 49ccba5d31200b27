/** The steps of a payment where the crash tests kill a process (see tests/faults/sigkill-payment-steps.test.ts). */
export type CrashPointName =
  /** links: a payment's move to paid (and its outbox row) committed, the reply not yet sent. */
  | 'links.after-settle-commit'
  /** links: an outbox batch acknowledged by Kafka, not yet marked published. */
  | 'links.after-publish-before-mark'
  /** notifier: a webhook answered by the merchant, the attempt not yet recorded. */
  | 'notifier.after-send-before-record';

/** The variables that arm a crash point: test-only, ignored in production, never set by a deployment. */
export const CRASH_POINT_ENV = ['CRASH_AT', 'CRASH_AT_HIT'] as const;

// Read once at start: a process is armed for one point for its whole life, and never in production.
const armed = process.env.NODE_ENV === 'production' ? undefined : process.env.CRASH_AT;
let hitsLeft = Math.max(1, Number(process.env.CRASH_AT_HIT ?? '1') || 1);

/**
 * Fault injection for the crash tests: when `CRASH_AT` names this point, the process kills itself with
 * SIGKILL on its `CRASH_AT_HIT`-th pass (1st by default), as an OOM kill or a lost node would, with no
 * chance to finish or clean up. A no-op otherwise, and always in production.
 */
export function crashPoint(name: CrashPointName): void {
  if (armed !== name) return;
  hitsLeft -= 1;
  if (hitsLeft === 0) process.kill(process.pid, 'SIGKILL');
}
