import { createHmac, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { subjects, type ShopView, type WebhookTarget } from '@pl/contracts';
import { notFound } from '@pl/errors';
import { Receiver, type Hit } from './receiver';
import { TestSystem } from './harness';

const NEW_SECRET = 'secret-after-rotation-Ω';
const OLD_SECRET = 'secret-before-rotation';
const receiverWith = (secret: string): Webhook => new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`);
const verifies = (secret: string, hit: Hit): boolean => {
  try {
    receiverWith(secret).verify(hit.body.toString('utf8'), hit.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

/**
 * The notifier's side of a webhook secret rotation, end to end (NATS target lookup, worker, HTTP): the shops
 * service is stood in for, answering one shop inside its overlap (previous secret set) and one after it.
 */
describe('webhook signatures around a secret rotation', () => {
  const system = new TestSystem('notifrot');
  let receiver: Receiver;
  const targets = new Map<number, WebhookTarget>();
  const IN_OVERLAP = 1;
  const AFTER_OVERLAP = 2;

  beforeAll(async () => {
    await system.start({ withShops: false });
    receiver = await new Receiver().start();
    targets.set(IN_OVERLAP, {
      shop_id: IN_OVERLAP,
      url: receiver.url,
      secret: NEW_SECRET,
      previous_secret: OLD_SECRET,
      webhook_events: ['payment.succeeded'],
    });
    targets.set(AFTER_OVERLAP, {
      shop_id: AFTER_OVERLAP,
      url: receiver.url,
      secret: NEW_SECRET,
      previous_secret: null,
      webhook_events: ['payment.succeeded'],
    });
    const shops = system.standInShops();
    shops.handle(subjects.shopsWebhookTarget, async (req) => {
      const target = targets.get(req.shop_id);
      if (!target) throw notFound('Shop not found');
      return target;
    });
    shops.handle(subjects.shopsGet, async (req): Promise<ShopView> => {
      if (!targets.has(req.shop_id)) throw notFound('Shop not found');
      return {
        id: req.shop_id,
        merchant_id: system.merchantId,
        name: 'Rotating shop',
        status: 'approved',
        fee_payer: 'merchant',
        crypto_bps: 100,
        sbp_bps: 100,
        webhook_url: receiver.url,
        webhook_events: ['payment.succeeded'],
        payment_methods: { sbp: true, crypto_networks: [] },
      };
    });
    await system.flushBus();
  });

  afterAll(async () => {
    await receiver?.close();
    await system.stop();
  });

  const delivered = async (shopId: number): Promise<Hit> => {
    const next = receiver.hits.length + 1;
    const reply = await system.bus!.request(subjects.deliveriesTest, { shop_id: shopId }, system.merchant());
    const hit = await receiver.nth(next);
    expect(hit.headers['x-webhook-id']).toBe(reply.webhook_id);
    return hit;
  };

  it('during the overlap signs with both secrets, the new first: a receiver holding either verifies', async () => {
    const hit = await delivered(IN_OVERLAP);
    expect(String(hit.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(NEW_SECRET, hit)).toBe(true);
    expect(verifies(OLD_SECRET, hit)).toBe(true);
    expect(verifies(randomUUID(), hit)).toBe(false);
    const hex = createHmac('sha256', NEW_SECRET).update(hit.body).digest('hex');
    expect(hit.headers).toMatchObject({ 'x-webhook-signature': hex, 'service-signature': hex });
  });

  it('after the overlap signs with the new secret alone: the old secret no longer verifies', async () => {
    const hit = await delivered(AFTER_OVERLAP);
    expect(String(hit.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(NEW_SECRET, hit)).toBe(true);
    expect(verifies(OLD_SECRET, hit)).toBe(false);
  });
});
