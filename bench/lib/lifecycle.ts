import { killAllProcessesNow, stopAllProcesses } from './processes';

/**
 * How every bench entry point (run, webhooks, dashboard-links, ledger, soak) starts and ends: one shutdown path,
 * taken once, whether the bench finishes, fails or is interrupted.
 *
 * Whatever a bench opens (the system, a sink, a receiver, a pool, a connection) it hands to {@link Lifecycle.defer}
 * right after opening it; at the end the steps run newest first, each on its own (one failing does not keep the others
 * from running), and then every child process still alive (processes.ts keeps the list) gets SIGTERM, SIGKILL after a
 * grace. Ctrl-C or SIGTERM: the bench is told ({@link Lifecycle.interrupted}, {@link Lifecycle.onInterrupt}), the same
 * steps run and it exits 130; a second signal (over {@link RELAYED_WITHIN_MS} later), or clean-up outlasting
 * {@link HARD_EXIT_MS}, kills the children at once.
 * On any exit, the last resort SIGKILLs what is left: no service outlives its bench.
 */
export interface Lifecycle {
  /** Runs `step` at the end (newest first, once). */
  defer(step: () => unknown): void;
  /** True once a signal came: start no further work, write no partial results over the last ones. */
  readonly interrupted: boolean;
  /** Called at once when a signal comes, e.g. to stop a load generator before the clean-up waits on it. */
  onInterrupt(hook: () => void): void;
  /** A progress line on stderr, prefixed with the bench's name. */
  progress: (line: string) => void;
}

/** Clean-up that takes longer than this after a signal is cut short (the services' own stop bound is 25 s). */
const HARD_EXIT_MS = 40_000;
/** Signals this soon after the first are the same one, relayed; a later one is the user's second. */
const RELAYED_WITHIN_MS = 2000;
/** What a child still alive after the steps gets between SIGTERM and SIGKILL. */
const STRAGGLER_GRACE_MS = 10_000;

/**
 * Runs `main` under one {@link Lifecycle} and exits with its code (1 when it throws, 130 when interrupted). `name` is
 * the bench's in its messages (`bench`, `bench:ledger`, `soak`).
 */
export function runBench(name: string, main: (life: Lifecycle) => Promise<number>): void {
  // kafkajs warns about its partitioner on every producer; the benches' publishers take the default.
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  const steps: (() => unknown)[] = [];
  const hooks: (() => void)[] = [];
  let interrupted = false;
  let cleaning: Promise<void> | undefined;
  const progress = (line: string): void => {
    process.stderr.write(`${name}: ${line}\n`);
  };
  const cleanUp = (): Promise<void> =>
    (cleaning ??= (async () => {
      for (const step of steps.reverse()) {
        try {
          await step();
        } catch (e) {
          progress(`a clean-up step failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      await stopAllProcesses(STRAGGLER_GRACE_MS);
    })());

  const life: Lifecycle = {
    defer: (step) => steps.push(step),
    get interrupted() {
      return interrupted;
    },
    onInterrupt: (hook) => hooks.push(hook),
    progress,
  };

  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) {
      // One Ctrl-C reaches the bench more than once: from the terminal, and relayed by npm and tsx.
      if (Date.now() - firstSignalAt < RELAYED_WITHIN_MS) return;
      progress(`${signal} again: killing every child process now`);
      killAllProcessesNow();
      process.exit(130);
    }
    interrupted = true;
    firstSignalAt = Date.now();
    progress(`${signal}: stopping and cleaning up (again to kill at once)`);
    for (const hook of hooks) hook();
    setTimeout(() => {
      progress(`clean-up took over ${HARD_EXIT_MS / 1000} s: killing every child process`);
      killAllProcessesNow();
      process.exit(130);
    }, HARD_EXIT_MS).unref();
    void cleanUp().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', killAllProcessesNow);

  main(life).then(
    async (code) => {
      await cleanUp();
      process.exit(interrupted ? 130 : code);
    },
    async (e: unknown) => {
      // Interrupted work fails as it is cut off: the signal's path reports and exits.
      if (interrupted) return;
      progress(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      await cleanUp();
      process.exit(1);
    },
  );
}
