import { modeOfLivemode, type Identity, type SelectMethodCommand } from '@pl/contracts';
import { invalidField, linkNotPending } from '@pl/errors';
import { computeAmounts } from '@pl/money';
import { LINKS_SERVICE_IDENTITY, requireService } from './access';
import { loadLink } from './get-link';
import type { LinkRecord, LinkSelection } from './link';
import { LINKS_OWN_MODE, type LinkDeps } from './ports';

/** A link with what the checkout page shows of its shop. */
export interface BuyerLink {
  link: LinkRecord;
  shopName: string;
}

export async function withShopName(deps: LinkDeps, link: LinkRecord): Promise<BuyerLink> {
  const shop = await deps.shops.getShop(link.shopId, LINKS_SERVICE_IDENTITY);
  return { link, shopName: shop.name };
}

/** crypto needs a network, SBP takes none; the contract lets both shapes through, so the rule lives here. */
function checkShape(command: SelectMethodCommand): void {
  if (command.method === 'crypto' && command.network === null) {
    throw invalidField('network', 'is required for crypto', 'invalid_type');
  }
  if (command.method === 'sbp' && command.network !== null) {
    throw invalidField('network', 'is not allowed for sbp');
  }
}

/**
 * The selection for a link: SBP switches the link to the shop's SBP rate, crypto keeps (or restores) the crypto rate.
 * The payment goes to the provider of the link's mode: a test link's to the sandbox, never to a real provider.
 */
function selectionFor(deps: LinkDeps, link: LinkRecord, command: SelectMethodCommand): LinkSelection {
  const feeBps = command.method === 'sbp' ? link.sbpBps : link.cryptoBps;
  const amounts = computeAmounts(link.amount, feeBps, link.feePayer);
  const provider = deps.providers.forMode(modeOfLivemode(link.livemode));
  const payment = provider.createPayment({
    linkId: link.id,
    method: command.method,
    network: command.network,
    payerAmountKopecks: amounts.payerAmount,
  });
  return {
    feeBps,
    payerAmount: amounts.payerAmount,
    merchantCredit: amounts.merchantCredit,
    platformRevenue: amounts.platformRevenue,
    gatewayProvider: provider.name,
    gatewayPaymentId: payment.gateway_payment_id,
    toCurrency: payment.to_currency,
    network: payment.network,
    depositAddress: payment.deposit_address,
    payerCurrency: payment.payer_currency,
    payerCryptoAmount: payment.payer_crypto_amount,
    qr: payment.qr,
  };
}

/**
 * The buyer picks how to pay. Only a pending link can be selected (a due one reads as expired), and
 * the buyer may change their mind while it stays pending. The write is conditional on the link still
 * being pending, so a selection never lands on a link that was paid, canceled or expired meanwhile.
 */
export async function selectMethod(deps: LinkDeps, identity: Identity, command: SelectMethodCommand): Promise<BuyerLink> {
  requireService(identity);
  checkShape(command);
  const link = await loadLink(deps, command.id);
  if (link.status !== 'pending') throw linkNotPending(link.status);
  const selected = await deps.links.applySelection(link.id, selectionFor(deps, link, command), LINKS_OWN_MODE);
  if (!selected) {
    const now = await loadLink(deps, link.id);
    throw linkNotPending(now.status === 'pending' ? 'expired' : now.status);
  }
  return withShopName(deps, selected);
}

/** The checkout page's read: the buyer-safe view, a due link already expired. */
export async function getPublicLink(deps: LinkDeps, identity: Identity, id: string): Promise<BuyerLink> {
  requireService(identity);
  return withShopName(deps, await loadLink(deps, id));
}
