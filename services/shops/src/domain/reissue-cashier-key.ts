import type { Identity } from '@pl/contracts';
import { newCashierKey } from './cashier-key';
import { getManagedShop, requireConfirmedEmail } from './shop-access';
import type { ShopStore } from './shop';

/**
 * A new cashier key for the shop, shown this once; every earlier key stops at once (the gateway looks each
 * key up on every request, so nothing keeps a revoked one alive).
 */
export async function reissueCashierKey(shops: ShopStore, identity: Identity, shopId: number): Promise<{ cashier_key: string }> {
  await getManagedShop(shops, identity, shopId);
  requireConfirmedEmail(identity, 'reissuing cashier keys');
  const cashierKey = newCashierKey();
  await shops.replaceCashierKeys(shopId, cashierKey);
  return { cashier_key: cashierKey };
}
