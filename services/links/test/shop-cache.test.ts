import { randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
import pino from 'pino';
import { connectNats, subjectName } from '@pl/bus';
import { broadcasts, subjects, type ShopsChangedMessage } from '@pl/contracts';
import { Db } from '@pl/db';
import { DEV_WEBHOOK_SECRET_KEY, SecretBox, ShopRepository, SHOPS_SCHEMA } from '@pl/shops/testing';
import { apiKey, cashier, startLinksSystem, type LinksSystem } from './support/links-system';

jest.setTimeout(30_000);

/**
 * The links service keeps short-lived copies of shops. These tests show that a copy saves the trip to the
 * shops service, and that a change made in the shops' data reaches new creates as soon as the shops
 * service's change notice has gone out: each test awaits that notice, never a clock.
 */
describe('shop copies in the links service', () => {
  let system: LinksSystem;
  let shopsDb: Db;
  let shops: ShopRepository;
  let nc: NatsConnection;
  /** Every shops.get request the links service sends, as seen by a listener outside the queue group. */
  let shopLookups = 0;
  const notices: ShopsChangedMessage[] = [];
  let onNotice: (() => void) | undefined;

  beforeAll(async () => {
    system = await startLinksSystem('linksshopcache');
    shopsDb = new Db({ url: system.databaseUrl, schema: SHOPS_SCHEMA, log: pino({ level: 'silent' }) });
    shops = new ShopRepository(shopsDb, SecretBox.fromBase64(DEV_WEBHOOK_SECRET_KEY));
    nc = await connectNats('nats://127.0.0.1:4222', 'shop-cache-test', pino({ level: 'silent' }));
    nc.subscribe(subjectName(system.namespace, subjects.shopsGet.name), { callback: () => (shopLookups += 1) });
    system.bus.subscribe(
      broadcasts.shopsChanged,
      (notice) => {
        notices.push(notice);
        onNotice?.();
      },
      () => undefined,
    );
    await nc.flush();
  });

  afterAll(async () => {
    await nc?.close();
    await shopsDb?.close();
    await system?.stop();
  });

  /** Resolves once the shops service announced a change of `shopId` (or of every shop). */
  const noticeFor = (shopId: number, fromIndex: number): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (notices.slice(fromIndex).some((n) => n.shop_id === shopId || n.shop_id === null)) {
          onNotice = undefined;
          resolve();
        }
      };
      onNotice = check;
      check();
    });

  /** Changes a shop the way the admin CLI does (straight through the shops' repository) and waits for the notice. */
  const changeShop = async (shopId: number, patch: Parameters<ShopRepository['updateShop']>[1]): Promise<void> => {
    const from = notices.length;
    await shops.updateShop(shopId, patch);
    await noticeFor(shopId, from);
  };

  it('asks the shops service once for many creates in the same shop', async () => {
    const merchant = randomUUID();
    const shopId = await system.createShop(merchant);
    const before = shopLookups;
    await Promise.all([1, 2, 3, 4, 5].map(() => system.createLink(apiKey(merchant), { shop_id: shopId })));
    await system.createLink(apiKey(merchant), { shop_id: shopId });
    await nc.flush();
    expect(shopLookups - before).toBe(1);
  });

  it('stops new creates for a shop blocked in the shops data as soon as the change notice is out', async () => {
    const merchant = randomUUID();
    const shopId = await system.createShop(merchant);
    await system.createLink(apiKey(merchant), { shop_id: shopId });
    await changeShop(shopId, { status: 'blocked' });
    await expect(system.createLink(apiKey(merchant), { shop_id: shopId })).rejects.toMatchObject({ code: 'shop.err.not_approved' });
    await changeShop(shopId, { status: 'approved' });
    await expect(system.createLink(apiKey(merchant), { shop_id: shopId })).resolves.toMatchObject({ status: 'pending' });
  });

  it('prices the next link with changed fee settings as soon as the change notice is out', async () => {
    const merchant = randomUUID();
    const shopId = await system.createShop(merchant, { crypto_bps: 150, fee_payer: 'merchant' });
    expect(await system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: 10000 })).toMatchObject({
      fee_bps: 150,
      platform_revenue: '1.50',
    });
    await changeShop(shopId, { crypto_bps: 300, fee_payer: 'client' });
    expect(await system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: 10000 })).toMatchObject({
      fee_bps: 300,
      fee_payer: 'client',
      payer_amount: '103.00',
    });
  });

  it('still refuses another merchant and another shop than a cashier key names while the shop is in memory', async () => {
    const merchant = randomUUID();
    const [shopId, otherShop] = [await system.createShop(merchant), await system.createShop(merchant)];
    await system.createLink(apiKey(merchant), { shop_id: shopId });
    await system.createLink(apiKey(merchant), { shop_id: otherShop });
    await expect(system.createLink(apiKey(randomUUID()), { shop_id: shopId })).rejects.toMatchObject({ code: 'common.err.forbidden' });
    await expect(system.createLink(cashier(merchant, otherShop), { shop_id: shopId })).rejects.toMatchObject({
      code: 'common.err.forbidden',
    });
    await expect(system.createLink(apiKey(merchant), { shop_id: 987_654_321 })).rejects.toMatchObject({ code: 'common.err.not_found' });
  });

  it('drops every copy on a notice that names no shop (changes the publisher may have missed)', async () => {
    const merchant = randomUUID();
    const shopId = await system.createShop(merchant);
    await system.createLink(apiKey(merchant), { shop_id: shopId });
    const before = shopLookups;
    const from = notices.length;
    system.bus.publish(broadcasts.shopsChanged, { shop_id: null });
    await noticeFor(-1, from);
    await system.createLink(apiKey(merchant), { shop_id: shopId });
    await nc.flush();
    expect(shopLookups - before).toBe(1);
  });
});
