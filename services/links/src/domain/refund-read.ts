import type { Identity, ListRefundsCommand, MerchantIdentity, RefundPage } from '@pl/contracts';
import { forbidden, notFound } from '@pl/errors';
import { assertLinkVisible, requireMerchant, scopeOf } from './access';
import { decodeCursor } from './cursor';
import type { RefundDeps, RefundRecord } from './refund';
import { toRefundPage } from './refund-view';

/** As a link: another merchant's refund, or another shop's for a cashier key, is 403 (another mode's never gets here). */
export function assertRefundVisible(refund: RefundRecord, who: MerchantIdentity): void {
  if (refund.merchantId !== who.merchant_id) throw forbidden('Refund belongs to another merchant');
  if (who.shop_id !== undefined && refund.shopId !== who.shop_id) throw forbidden("Refund belongs to another shop than the cashier key's");
}

/** One refund of the caller's mode: unknown (or of the other mode) 404, another merchant's 403. */
export async function getRefund(deps: RefundDeps, identity: Identity, id: string): Promise<RefundRecord> {
  const who = requireMerchant(identity);
  const refund = await deps.refunds.findById(id, { mode: who.mode });
  if (!refund) throw notFound('Refund not found');
  assertRefundVisible(refund, who);
  return refund;
}

/**
 * The caller's refunds of its mode, newest first, one keyset page at a time (one row beyond the limit tells
 * whether another page follows). A filter follows the link list's rule, whether or not it has refunds: an unknown
 * shop or link (or a link of the other mode) 404, another merchant's 403; a cashier key sees its own shop only.
 */
export async function listRefunds(deps: RefundDeps, identity: Identity, command: ListRefundsCommand): Promise<RefundPage> {
  const who = requireMerchant(identity);
  const after = command.cursor === null ? null : decodeCursor(command.cursor);
  const scope = scopeOf(who);
  if (scope.shopId !== undefined && command.shop_id !== null && command.shop_id !== scope.shopId) {
    throw forbidden("shop_id does not match the cashier key's shop");
  }
  if (command.shop_id !== null && scope.shopId === undefined) await deps.shops.getShop(command.shop_id, who);
  if (command.payment_link_id !== null) {
    const link = await deps.links.findById(command.payment_link_id, { mode: who.mode });
    if (!link) throw notFound('Payment link not found');
    assertLinkVisible(link, who);
  }
  const rows = await deps.refunds.list({
    scope,
    paymentLinkId: command.payment_link_id,
    shopId: command.shop_id,
    status: command.status,
    after,
    limit: command.limit + 1,
  });
  return toRefundPage(rows, command.limit);
}
