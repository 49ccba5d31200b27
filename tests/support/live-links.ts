import { randomUUID } from 'node:crypto';
import type { TestMerchant, TestShop, TestSystem } from './system';

/**
 * A live link of `shop` created with the merchant's API keys, for the tests that pay through the real providers'
 * adapters and their fakes: its id. The order id starts with `prefix` so that a failing test's rows can be found by
 * the test that made them.
 */
export async function createLiveLink(sys: TestSystem, merchant: TestMerchant, shop: TestShop, amount: string, prefix: string): Promise<string> {
  const res = await sys.http.post(
    '/merchant/v1/payment-links',
    { shop_id: shop.id, amount, order_id: `${prefix}-${randomUUID()}` },
    { headers: merchant.keys },
  );
  expect(res.status).toBe(201);
  return res.body.id as string;
}
