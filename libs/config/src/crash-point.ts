/** The variables that arm a crash point: test-only, ignored in production, never set by a deployment. */
export const CRASH_POINT_ENV = ['CRASH_AT', 'CRASH_AT_HIT'] as const;

/** What a service's domain is told at each step where the crash tests may stop it (its `CrashPoints` port). */
interface CrashPointHook {
  reached(point: string): void;
}

/**
 * The crash tests' fault injection (tests/faults), for a service's main to wire into its domain's crash-point
 * port, and only when the test's environment asks: `CRASH_AT` names a step, and the process kills itself with
 * SIGKILL on its `CRASH_AT_HIT`-th pass (1st by default), as an OOM kill or a lost node would, with no chance to
 * finish or clean up. Undefined when nothing is armed, and always with NODE_ENV=production: the service then
 * keeps its no-op.
 */
export function crashPointsFromEnv(env: NodeJS.ProcessEnv): CrashPointHook | undefined {
  const armed = env.NODE_ENV === 'production' ? undefined : env.CRASH_AT;
  if (!armed) return undefined;
  let hitsLeft = Math.max(1, Number(env.CRASH_AT_HIT ?? '1') || 1);
  return {
    reached(point) {
      if (point !== armed) return;
      hitsLeft -= 1;
      if (hitsLeft === 0) process.kill(process.pid, 'SIGKILL');
    },
  };
}
