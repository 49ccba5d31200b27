import type { CreateLinkCommand, Identity, MerchantIdentity } from '@pl/contracts';
import { emailNotConfirmed, forbidden, shopNotApproved, validationFailed } from '@pl/errors';
import { computeAmounts } from '@pl/money';
import { requireMerchant } from './access';
import type { LinkRecord } from './link';
import type { LinkDeps } from './ports';

/** The shop a create acts on: a cashier key's own shop, or the one named in the command. */
function shopIdFor(who: MerchantIdentity, command: CreateLinkCommand): number {
  if (who.shop_id !== undefined) {
    if (command.shop_id !== undefined && command.shop_id !== who.shop_id) {
      throw forbidden("shop_id does not match the cashier key's shop");
    }
    return who.shop_id;
  }
  if (command.shop_id === undefined) {
    throw validationFailed('shop_id is required', [{ path: ['shop_id'], message: 'shop_id is required' }]);
  }
  return command.shop_id;
}

/**
 * Creates a pending link for an approved shop. Checks run in the order of the decisions:
 * validation → existence (404) → ownership (403) → account state (403) → shop state (422).
 */
export async function createLink(deps: LinkDeps, identity: Identity, command: CreateLinkCommand): Promise<LinkRecord> {
  const who = requireMerchant(identity);
  const shopId = shopIdFor(who, command);
  // The directory answers not_found and forbidden for the identity itself.
  const shop = await deps.shops.getShop(shopId, who);
  if (shop.merchant_id !== who.merchant_id) throw forbidden('Shop belongs to another merchant');
  if (who.auth === 'session' && !who.email_confirmed) throw emailNotConfirmed();
  if (shop.status !== 'approved') throw shopNotApproved();

  const amounts = computeAmounts(command.amount_kopecks, shop.crypto_bps, shop.fee_payer);
  return deps.links.insert({
    id: deps.newId(),
    merchantId: who.merchant_id,
    shopId: shop.id,
    orderId: command.order_id,
    description: command.description,
    amount: command.amount_kopecks,
    // Before a method is selected the link is priced at the crypto rate.
    feeBps: shop.crypto_bps,
    feePercentBp: shop.crypto_bps,
    cryptoBps: shop.crypto_bps,
    sbpBps: shop.sbp_bps,
    feePayer: shop.fee_payer,
    payerAmount: amounts.payerAmount,
    merchantCredit: amounts.merchantCredit,
    platformRevenue: amounts.platformRevenue,
    expiresInMinutes: command.expires_in_minutes,
  });
}
