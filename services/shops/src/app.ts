import { BusClient, BusServer, IdentityTokens, connectNats, natsAnswers } from '@pl/bus';
import { broadcasts } from '@pl/contracts';
import type { RunningService } from '@pl/config';
import { Db } from '@pl/db';
import { createLogger, createMetricsRegistry, startOpsServer, type Logger } from '@pl/telemetry';
import type { ShopsConfig } from './config';
import { SHOPS_SCHEMA } from './data/migrate';
import { ShopChangesListener } from './data/shop-changes.listener';
import { ShopRepository } from './data/shop.repository';
import { SecretBox } from './domain/secret-box';
import { registerMerchantShopHandlers } from './entry/nats/merchant-shop.handlers';
import { registerShopHandlers } from './entry/nats/shop.handlers';
import { registerWebhookTargetHandler } from './entry/nats/webhook-target.handler';

/** Starts the shops service: answers shop look-ups and merchants' shop management on NATS in the `shops` queue group. */
export async function startShops(config: ShopsConfig, log: Logger = createLogger('shops', config.LOG_LEVEL)): Promise<RunningService> {
  const metrics = createMetricsRegistry('shops');
  const db = new Db({ url: config.DATABASE_URL, schema: SHOPS_SCHEMA, log, max: config.DATABASE_POOL_MAX });
  const nc = await connectNats(config.NATS_URL, 'shops', log);
  const tokens = new IdentityTokens(config.IDENTITY_TOKEN_SECRET);
  const server = new BusServer(nc, config.BUS_NAMESPACE, tokens, 'shops', log, { metrics });
  const shops = new ShopRepository(db, SecretBox.fromBase64(config.WEBHOOK_SECRET_KEY));
  registerShopHandlers(server, shops);
  registerWebhookTargetHandler(server, shops);
  // Every committed change of a shop goes out on `shops.changed`, so copies elsewhere (links, notifier) go at once.
  const publisher = new BusClient(nc, config.BUS_NAMESPACE, tokens, config.NATS_REQUEST_TIMEOUT_MS);
  const announce = (shopId: number | null): void => {
    try {
      publisher.publish(broadcasts.shopsChanged, { shop_id: shopId });
    } catch (err) {
      log.warn({ err, shop_id: shopId }, 'could not announce a shop change; copies elsewhere live out their TTL');
    }
  };
  const changes = new ShopChangesListener(config.DATABASE_URL, announce, log);
  registerMerchantShopHandlers(
    server,
    {
      shops,
      webhookPolicy: { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS },
      defaultRates: { cryptoBps: config.SHOP_DEFAULT_CRYPTO_BPS, sbpBps: config.SHOP_DEFAULT_SBP_BPS },
      payoutMaxKopecks: config.PAYOUT_MAX,
    },
    announce,
  );
  await changes.start();

  const ops = await startOpsServer({
    port: config.OPS_PORT,
    // Its work arrives over NATS and lives in Postgres: ready when both answer (a reconnecting client is not closed, yet serves nothing).
    ready: async () => (await natsAnswers(nc)) && (await db.ping()),
    metrics,
  });
  log.info({ ops_port: ops.port, namespace: config.BUS_NAMESPACE }, 'shops service started');

  return {
    opsPort: ops.port,
    async stop() {
      await server.drain();
      await changes.stop();
      await ops.close();
      await nc.drain().catch(() => undefined);
      await db.close();
      log.info('shops service stopped');
    },
  };
}
