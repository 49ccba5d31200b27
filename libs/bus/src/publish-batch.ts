/**
 * Defers NATS publishes to the check phase of the current event-loop turn, so the messages of every
 * request that became ready in one turn (HTTP requests parsed from many sockets, database answers for
 * many handlers) leave in one socket write. nats.js flushes once per microtask checkpoint, which under
 * load means one write, and one wake-up of the NATS server, per request. The delay is a fraction of a
 * millisecond.
 */
let queue: (() => void)[] = [];
/** The flush scheduled for this turn, if any; resolves once its sends went out. */
let scheduled: Promise<void> | null = null;
let release: () => void = () => undefined;

function flush(): void {
  scheduled = null;
  release();
  const sends = queue;
  queue = [];
  for (const send of sends) {
    try {
      send();
    } catch {
      // Each send handles the failures it cares about (a request rejects at once); one that throws anyway
      // must not keep the others from going out.
    }
  }
}

/** Runs `send` (one or more `nc.publish`/`msg.respond` calls) with the other sends of this turn. */
export function publishSoon(send: () => void): void {
  queue.push(send);
  if (!scheduled) {
    scheduled = new Promise<void>((resolve) => (release = resolve));
    setImmediate(flush);
  }
}

/**
 * Resolves once every send passed to {@link publishSoon} so far has been handed to its connection, so a
 * caller about to close a connection (a server draining) does not close it under a reply still queued here.
 */
export function publishedSoFar(): Promise<void> {
  return scheduled ?? Promise.resolve();
}
