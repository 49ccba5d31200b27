import {
  isLive,
  type CreateLinkCommand,
  type CreateLinkOnceCommand,
  type Identity,
  type MerchantIdentity,
  type Mode,
  type ShopStatus,
} from '@pl/contracts';
import { emailNotConfirmed, forbidden, invalidField, shopNotApproved } from '@pl/errors';
import { computeAmounts } from '@pl/money';
import { requireMerchant } from './access';
import { keptAnswer, keyRefOf, winnerAnswer, type LinkAnswer } from './idempotency';
import type { LinkRecord, NewLink } from './link';
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
    throw invalidField('shop_id', 'is required', 'invalid_type');
  }
  return command.shop_id;
}

/**
 * The shop states a link of a mode may be created in. A live link needs an approved shop; a test link moves no
 * money, so a merchant may integrate while approval is pending, but a blocked or rejected shop is done with.
 */
const CREATABLE_IN: Readonly<Record<Mode, readonly ShopStatus[]>> = {
  live: ['approved'],
  test: ['approved', 'pending'],
};

/**
 * The pending link a create makes, in the caller's mode. Checks run in the order of the decisions:
 * validation → existence (404) → ownership (403) → account state (403) → shop state (422).
 */
async function newLinkFor(deps: LinkDeps, who: MerchantIdentity, command: CreateLinkCommand): Promise<NewLink> {
  const shopId = shopIdFor(who, command);
  // The directory answers not_found and forbidden for the identity itself.
  const shop = await deps.shops.getShop(shopId, who);
  if (shop.merchant_id !== who.merchant_id) throw forbidden('Shop belongs to another merchant');
  if (who.auth === 'session' && !who.email_confirmed) throw emailNotConfirmed();
  if (!CREATABLE_IN[who.mode].includes(shop.status)) throw shopNotApproved();

  const amounts = computeAmounts(command.amount_kopecks, shop.crypto_bps, shop.fee_payer);
  return {
    id: deps.newId(),
    merchantId: who.merchant_id,
    shopId: shop.id,
    livemode: isLive(who.mode),
    orderId: command.order_id,
    description: command.description,
    returnUrl: command.return_url,
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
  };
}

export async function createLink(deps: LinkDeps, identity: Identity, command: CreateLinkCommand): Promise<LinkRecord> {
  const who = requireMerchant(identity);
  return deps.links.insert(await newLinkFor(deps, who, command));
}

/**
 * A create that carried an Idempotency-Key. The first request with the key creates the link and keeps the key
 * with it in one statement; any later one gets that link as it was first answered, whatever the gateway's cache
 * remembers, and a concurrent one waits for the first to commit and gets the same. The key reused for another
 * body is a conflict. Only a created link is kept: a refused create changes nothing, so its retry is judged anew.
 */
export async function createLinkOnce(deps: LinkDeps, identity: Identity, command: CreateLinkOnceCommand): Promise<LinkAnswer> {
  const who = requireMerchant(identity);
  const { idempotency, ...create } = command;
  const key = keyRefOf(who, idempotency);
  const kept = await keptAnswer(deps.idempotency, key);
  if (kept) return kept;
  const created = await deps.idempotency.insertLink(await newLinkFor(deps, who, create), key);
  return created === 'key_taken' ? winnerAnswer(deps.idempotency, key) : { link: created, replayed: false };
}
