import { randomUUID } from 'node:crypto';
import { BusClient, BusServer, connectNats, IdentityTokens } from '@pl/bus';
import type { RunningService } from '@pl/config';
import { Db } from '@pl/db';
import { createLogger, startOpsServer, type Logger } from '@pl/telemetry';
import type { LinksConfig } from './config';
import { LinkRepository } from './data/link.repository';
import { LINKS_SCHEMA } from './data/migrate';
import { ShopClient } from './data/shop.client';
import { registerLinkHandlers } from './entry/nats/link.handlers';

/** Starts the links service: NATS handlers in queue group `links`, Postgres schema `links`, the ops server. */
export async function startLinks(config: LinksConfig, log: Logger = createLogger('links', config.LOG_LEVEL)): Promise<RunningService> {
  const db = new Db({ url: config.DATABASE_URL, schema: LINKS_SCHEMA, log });
  const nc = await connectNats(config.NATS_URL, 'links', log);
  const tokens = new IdentityTokens(config.IDENTITY_TOKEN_SECRET);
  const bus = new BusClient(nc, config.BUS_NAMESPACE, tokens, config.NATS_REQUEST_TIMEOUT_MS);
  const server = new BusServer(nc, config.BUS_NAMESPACE, tokens, 'links', log);

  registerLinkHandlers(
    server,
    { links: new LinkRepository(db), shops: new ShopClient(bus), now: () => new Date(), newId: randomUUID },
    config.PUBLIC_BASE_URL,
  );
  await nc.flush();

  const ops = await startOpsServer({
    port: config.OPS_PORT,
    ready: async () => !nc.isClosed() && (await db.ping()),
  });
  log.info({ ops_port: ops.port, namespace: config.BUS_NAMESPACE }, 'links service started');

  return {
    opsPort: ops.port,
    async stop() {
      await server.drain();
      await nc.close();
      await Promise.all([ops.close(), db.close()]);
      log.info('links service stopped');
    },
  };
}
