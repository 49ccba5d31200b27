import type { Identity, Mode } from '@pl/contracts';
import { newCashierKey } from './cashier-key';
import { getManagedShop, requireConfirmedEmail } from './shop-access';
import type { ShopStore } from './shop';

/**
 * A new cashier key of `mode` for the shop, shown this once; the mode's earlier key stops at once (the gateway
 * looks each key up on every request, so nothing keeps a revoked one alive). The other mode's key keeps working:
 * renewing the test key must never stop a till that takes real payments.
 */
export async function reissueCashierKey(
  shops: ShopStore,
  identity: Identity,
  command: { shop_id: number; mode: Mode },
): Promise<{ cashier_key: string; mode: Mode }> {
  await getManagedShop(shops, identity, command.shop_id);
  requireConfirmedEmail(identity, 'reissuing cashier keys');
  const cashierKey = newCashierKey(command.mode);
  await shops.replaceCashierKeys(command.shop_id, cashierKey);
  return { cashier_key: cashierKey, mode: command.mode };
}
