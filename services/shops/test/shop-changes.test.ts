import { randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
import pino from 'pino';
import { BusClient, IdentityTokens, connectNats } from '@pl/bus';
import type { RunningService } from '@pl/config';
import { broadcasts, type ShopsChangedMessage } from '@pl/contracts';
import { Db } from '@pl/db';
import { createTestDatabase, FaultProxy, uniqueNamespace, withDeadline, type TestDatabase } from '@pl/testing';
import { startShops } from '../src/app';
import { loadConfig } from '../src/config';
import { migrateShops, SHOPS_SCHEMA } from '../src/data/migrate';
import { ShopRepository } from '../src/data/shop.repository';
import { SecretBox } from '../src/domain/secret-box';

jest.setTimeout(30_000);

const log = pino({ level: 'silent' });
const SECRET = 'shops-changes-test-identity-secret-0123456789';
const PG_URL = process.env.TEST_DATABASE_HOST_URL ?? 'postgres://postgres@127.0.0.1:5432';

/** The shops service announces every committed change of a shop on `shops.changed`, so copies elsewhere can go. */
describe('shop change notices', () => {
  let database: TestDatabase;
  let proxy: FaultProxy;
  let running: RunningService;
  let nc: NatsConnection;
  let db: Db;
  let repo: ShopRepository;
  const notices: ShopsChangedMessage[] = [];
  const waiters: { match: (n: ShopsChangedMessage) => boolean; resolve: () => void }[] = [];

  /**
   * Resolves with the first notice from `fromIndex` on that matches; fails naming `what` and the notices seen
   * since `fromIndex` after `withinMs` (well inside the test's time-out, so a missing notice is reported as such).
   */
  const notice = (match: (n: ShopsChangedMessage) => boolean, fromIndex: number, what: string, withinMs = 10_000): Promise<void> =>
    withDeadline(
      new Promise<void>((resolve) => {
        if (notices.slice(fromIndex).some(match)) {
          resolve();
          return;
        }
        waiters.push({ match, resolve });
      }),
      withinMs,
      what,
      () => `notices seen: ${JSON.stringify(notices.slice(fromIndex))}`,
    );

  const newShop = async (): Promise<number> =>
    (
      await repo.createShop({
        merchant_id: randomUUID(),
        name: 'Tea room',
        status: 'approved',
        fee_payer: 'merchant',
        crypto_bps: 100,
        sbp_bps: 100,
        webhook_url: null,
        webhook_secret: null,
      })
    ).shop.id;

  beforeAll(async () => {
    database = await createTestDatabase('shopchanges');
    await migrateShops(database.url, log);
    proxy = await new FaultProxy(new URL(PG_URL).hostname, Number(new URL(PG_URL).port)).start();
    const namespace = uniqueNamespace('shopchanges');
    nc = await connectNats('nats://127.0.0.1:4222', 'shop-changes-test', log);
    // Subscribed before the service starts, so its first announcement is seen too.
    new BusClient(nc, namespace, new IdentityTokens(SECRET)).subscribe(
      broadcasts.shopsChanged,
      (n) => {
        notices.push(n);
        for (const w of waiters.splice(0)) {
          if (w.match(n)) w.resolve();
          else waiters.push(w);
        }
      },
      () => undefined,
    );
    await nc.flush();
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: proxy.rewrite(database.url),
      BUS_NAMESPACE: namespace,
      IDENTITY_TOKEN_SECRET: SECRET,
      OPS_PORT: '0',
    });
    running = await startShops(config, log);
    db = new Db({ url: database.url, schema: SHOPS_SCHEMA, log });
    repo = new ShopRepository(db, SecretBox.fromBase64(config.WEBHOOK_SECRET_KEY));
  });

  afterAll(async () => {
    await running?.stop();
    await nc?.close();
    await db?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('announces that any shop may have changed once it starts listening', async () => {
    await notice((n) => n.shop_id === null, 0, 'the any-shop notice at start');
  });

  it('announces a committed change with the shop id, and nothing for a change that was rolled back', async () => {
    const [rolledBack, changed] = [await newShop(), await newShop()];
    const from = notices.length;
    await db
      .transaction(async (c) => {
        await c.query("UPDATE shops SET status = 'blocked' WHERE id = $1", [rolledBack]);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await repo.updateShop(changed, { crypto_bps: 250 });
    // Notices leave in commit order on one connection, so once the later one is here an earlier one would be too.
    await notice((n) => n.shop_id === changed, from, `the notice of shop ${changed}`);
    expect(notices.slice(from)).toEqual([{ shop_id: changed }]);
  });

  it('announces a change made by plain SQL, as an operator might', async () => {
    const shopId = await newShop();
    const from = notices.length;
    await db.query('UPDATE shops SET webhook_url = $2 WHERE id = $1', [shopId, 'https://example.com/hook']);
    await notice((n) => n.shop_id === shopId, from, `the notice of shop ${shopId}`);
  });

  it('announces that any shop may have changed after its database connection came back', async () => {
    const from = notices.length;
    proxy.down();
    proxy.up();
    // The service reconnects with a back-off of its own, hence the longer deadline.
    await notice((n) => n.shop_id === null, from, 'the any-shop notice after the connection came back', 20_000);
    // And it listens again: a change after the break is announced by id.
    const shopId = await newShop();
    await repo.updateShop(shopId, { name: 'Tea room 2' });
    await notice((n) => n.shop_id === shopId, from, `the notice of shop ${shopId} after the break`);
  });
});
