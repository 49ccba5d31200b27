import { randomUUID } from 'node:crypto';
import { broadcasts, subjects, type ShopsChangedMessage } from '@pl/contracts';
import { SHOPS_SCHEMA } from '../src/data/migrate';
import { merchant, startShopsHarness, type ShopsHarness } from './merchant-harness';

/**
 * A merchant's change of a shop is announced on `shops.changed` before the reply: whoever learns that the change
 * is done (the merchant, through the gateway) can act at once without meeting another service's old copy. The
 * notice and the reply travel to this test on one connection, and NATS keeps one publisher's messages in order.
 * (The change's notice from the database trigger, which comes on its own schedule, is the subject of shop-changes.test.ts.)
 */
describe('a shop change is announced before its reply', () => {
  let h: ShopsHarness;
  const owner = randomUUID();
  let notices: ShopsChangedMessage[] = [];

  beforeAll(async () => {
    h = await startShopsHarness('shopsannounce');
    // The trigger's notice (ShopChangesListener) often wins the race with the reply; without it, what arrives is
    // the handlers' own announcement alone.
    await h.db.query(`DROP TRIGGER shops_changed ON ${SHOPS_SCHEMA}.shops`);
    h.bus.subscribe(
      broadcasts.shopsChanged,
      (n) => {
        notices.push(n);
      },
      () => undefined,
    );
    await h.nc.flush();
  });

  afterAll(async () => {
    await h?.close();
  });

  /** A shop seeded straight into the database, with no notice counted yet. */
  const seeded = async (): Promise<number> => {
    const { shopId } = await h.seedShop(owner);
    notices = [];
    return shopId;
  };

  const changes: [string, (shopId: number) => Promise<unknown>][] = [
    ['shops.update', (shopId) => h.bus.request(subjects.shopsUpdate, { shop_id: shopId, webhook_events: ['payment_link.expired'] }, merchant(owner))],
    ['shops.rotate_secret', (shopId) => h.bus.request(subjects.shopsRotateSecret, { shop_id: shopId, overlap_minutes: 0 }, merchant(owner))],
    ['shops.reissue_cashier_key', (shopId) => h.bus.request(subjects.shopsReissueCashierKey, { shop_id: shopId, mode: 'live' }, merchant(owner))],
  ];

  it.each(changes)('%s: the notice has arrived when the reply does', async (_name, change) => {
    const shopId = await seeded();
    await change(shopId);
    expect(notices).toContainEqual({ shop_id: shopId });
  });

  it('announces nothing for a change that was refused', async () => {
    const shopId = await seeded();
    await expect(h.bus.request(subjects.shopsUpdate, { shop_id: shopId, name: 'X' }, merchant(randomUUID()))).rejects.toMatchObject({
      kind: 'forbidden',
    });
    expect(notices).toEqual([]);
  });
});
