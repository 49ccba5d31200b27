import { connectNats } from '@pl/bus';
import type { RunningService } from '@pl/config';
import { Db } from '@pl/db';
import { createLogger, startOpsServer, type Logger } from '@pl/telemetry';
import type { NotifierConfig } from './config';
import { NOTIFIER_SCHEMA } from './data/migrate';

const NATS_READY_TIMEOUT_MS = 1000;

/** Answers whether NATS round-trips a ping in time; a disconnected client would otherwise queue the flush. */
const natsAnswers = (flush: () => Promise<void>): Promise<boolean> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), NATS_READY_TIMEOUT_MS);
    flush().then(
      () => resolve(true),
      () => resolve(false),
    ).finally(() => clearTimeout(timer));
  });

/**
 * Starts the notifier: NATS, Postgres schema `notifier` and the ops server. The Kafka consumer and the
 * webhook deliveries come next; this is the frame they plug into.
 */
export async function startNotifier(config: NotifierConfig, log: Logger = createLogger('notifier', config.LOG_LEVEL)): Promise<RunningService> {
  const db = new Db({ url: config.DATABASE_URL, schema: NOTIFIER_SCHEMA, log });
  const nc = await connectNats(config.NATS_URL, 'notifier', log);

  const ops = await startOpsServer({
    port: config.OPS_PORT,
    ready: async () => !nc.isClosed() && (await natsAnswers(() => nc.flush())) && (await db.ping()),
  });
  log.info({ ops_port: ops.port, namespace: config.BUS_NAMESPACE }, 'notifier service started');

  return {
    opsPort: ops.port,
    async stop() {
      await nc.drain();
      await Promise.all([ops.close(), db.close()]);
      log.info('notifier service stopped');
    },
  };
}
