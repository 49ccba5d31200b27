import { connect, Events, type NatsConnection } from 'nats';
import type { Logger } from 'pino';

/**
 * Connects to NATS and keeps reconnecting forever: a service must outlive a NATS restart and serve
 * again by itself. Waits for the first connection too, so start order does not matter.
 */
export async function connectNats(url: string, name: string, log: Logger): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(','),
    name,
    waitOnFirstConnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    pingInterval: 5000,
    maxPingOut: 2,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === Events.Disconnect || status.type === Events.Reconnect || status.type === Events.Error) {
        log.warn({ nats_status: status.type }, 'nats connection status changed');
      }
    }
  })();
  return nc;
}

/**
 * Whether NATS round-trips a ping within `timeoutMs`: the readiness of a process whose work arrives over
 * NATS. `isClosed()` alone says nothing during an outage (the client is reconnecting, not closed), and a
 * disconnected client queues the flush instead of failing it, hence the time limit.
 */
export async function natsAnswers(nc: NatsConnection, timeoutMs = 1000): Promise<boolean> {
  if (nc.isClosed()) return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      nc.flush().then(
        () => true,
        () => false,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
