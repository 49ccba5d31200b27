/**
 * Waiting in tests for what has no event to await: a state reached inside another process (a database
 * row, a server's answer). Each gives up at its deadline with the name of what it waited for.
 */

/**
 * Resolves with the milliseconds it took once `done` answers true; checks every `everyMs`; a throw from `done` ends the wait.
 * `what` may be a function, read at the deadline, so the failure can name what the last check saw.
 */
export async function eventually(
  done: () => boolean | Promise<boolean>,
  what: string | (() => string),
  withinMs: number,
  everyMs = 50,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await done()) return Date.now() - started;
    if (Date.now() - started >= withinMs) throw new Error(`${typeof what === 'string' ? what : what()}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `work`, or a rejection naming `what` after `ms` (with `detail()` appended, e.g. a process's last log lines). */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string, detail?: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms${detail ? `\n${detail()}` : ''}`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
