/** A step of a delivery where the crash tests (tests/faults/sigkill-payment-steps.test.ts) may stop this service. */
export type NotifierCrashPoint =
  /** A webhook answered by the merchant, the attempt not yet recorded. */
  'notifier.after-send-before-record';

/**
 * Told each time a delivery passes one of those steps. Every deployment runs {@link NO_CRASH_POINTS}; only the
 * crash tests' configuration makes the main wire one that acts (it kills the process there).
 */
export interface CrashPoints {
  reached(point: NotifierCrashPoint): void;
}

export const NO_CRASH_POINTS: CrashPoints = { reached: () => undefined };
