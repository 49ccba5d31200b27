import { createClient } from 'redis';
import type { Logger } from 'pino';
import { isAppError, unavailable } from '@pl/errors';

export type Redis = ReturnType<typeof createRedis>;

/** Per-command limit: a half-open connection must not hold a request for longer than this. */
const COMMAND_TIMEOUT_MS = 1000;

/**
 * A node-redis client that never queues commands while disconnected (they fail at once, a 503) and
 * reconnects forever with a small capped backoff, so an outage is short-lived for clients and the
 * gateway recovers by itself.
 */
export function createRedis(url: string, log: Logger) {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    pingInterval: 5000,
    commandOptions: { timeout: COMMAND_TIMEOUT_MS },
    socket: {
      connectTimeout: 2000,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 5), 1000),
    },
  });
  let lastLoggedAt = 0;
  client.on('error', (err: unknown) => {
    // Reconnect attempts fail every second during an outage; one line per 10 s is enough.
    const now = Date.now();
    if (now - lastLoggedAt > 10_000) {
      lastLoggedAt = now;
      log.warn({ err }, 'redis connection error');
    }
  });
  return client;
}

/** Runs a Redis call; any failure of Redis itself becomes `unavailable` (503). */
export async function redisCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isAppError(e)) throw e;
    throw unavailable(`${what} is unavailable; retry later`);
  }
}
