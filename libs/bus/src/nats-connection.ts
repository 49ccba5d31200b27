import { connect, type NatsConnection } from 'nats';
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
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        log.warn({ nats_status: status.type }, 'nats connection status changed');
      }
    }
  })();
  return nc;
}
