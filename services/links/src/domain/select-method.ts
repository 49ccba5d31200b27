import { modeOfLivemode, type Identity, type SelectMethodCommand, type ShopView } from '@pl/contracts';
import { invalidField, linkNotPending, methodUnavailable, providerUnavailable } from '@pl/errors';
import { computeAmounts } from '@pl/money';
import { ProviderRefusedError, ProviderUnavailableError, type PaymentProvider } from '@pl/providers';
import { LINKS_SERVICE_IDENTITY, requireService } from './access';
import type { Attempt } from './attempt';
import type { CheckoutState } from './buyer-view';
import { loadLink } from './get-link';
import type { LinkRecord } from './link';
import { offeredMethods, requireOffered } from './offered-methods';
import type { LinkDeps } from './ports';

/** A link with what the checkout page shows of its shop, the methods it offers now, and the payment's progress. */
export interface BuyerLink {
  link: LinkRecord;
  shopName: string;
  checkout: CheckoutState;
}

/**
 * The shop's name, and for a pending link the methods offered now and what the provider last said of the selected
 * payment (a link that left pending offers nothing, and asks no provider). A caller that read the shop passes it.
 */
export async function withShopName(deps: LinkDeps, link: LinkRecord, shopInHand?: ShopView): Promise<BuyerLink> {
  const shop = shopInHand ?? (await deps.shops.getShop(link.shopId, LINKS_SERVICE_IDENTITY));
  if (link.status !== 'pending') return { link, shopName: shop.name, checkout: { methods: shop.payment_methods, progress: null } };
  const [methods, progress] = await Promise.all([
    offeredMethods(deps, link, shop.payment_methods),
    link.gatewayPaymentId === null ? null : deps.attempts.currentProgress(link.id),
  ]);
  return { link, shopName: shop.name, checkout: { methods, progress } };
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

/** Why a pending link could not take a new attempt: it left pending, or it is due (it reads as expired). */
async function notPending(deps: LinkDeps, linkId: string): Promise<never> {
  const now = await loadLink(deps, linkId);
  throw linkNotPending(now.status === 'pending' ? 'expired' : now.status);
}

/**
 * Asks the providers of replaced attempts to cancel them, after the select committed and without waiting: a failed
 * cancel blocks nothing (the attempt is `superseded` whatever its provider says, and a payment that still arrives for
 * it pays the link or is recorded).
 */
function cancelReplaced(deps: LinkDeps, attempts: readonly Attempt[]): void {
  for (const attempt of attempts) {
    const provider = deps.providers.byName(attempt.provider);
    if (!provider || !attempt.payment) continue;
    provider
      .cancelPayment({ gatewayPaymentId: attempt.payment.gatewayPaymentId, orderId: attempt.orderId }, { timeoutMs: deps.providerTimeoutMs })
      .catch((err: unknown) =>
        deps.warn({ err, provider: attempt.provider, order_id: attempt.orderId }, 'cancel of a replaced attempt failed; it stays superseded'),
      );
  }
}

/** The provider's payment for the attempt, the call made with no transaction open and no row locked. */
async function callProvider(deps: LinkDeps, provider: PaymentProvider, link: LinkRecord, attempt: Attempt, network: SelectMethodCommand['network']) {
  try {
    return await provider.createPayment(
      {
        orderId: attempt.orderId,
        linkId: link.id,
        method: attempt.method,
        network,
        payerAmountKopecks: attempt.payerAmount,
        description: link.description,
        merchantOrderId: link.orderId,
        expiresAt: link.expiresAt,
        returnUrl: link.returnUrl,
      },
      { timeoutMs: deps.providerTimeoutMs },
    );
  } catch (e) {
    if (e instanceof ProviderRefusedError) {
      await deps.attempts.recordFailure(attempt, 'refused', e.providerMessage);
      throw methodUnavailable('The payment provider refused this method for this payment', [
        { field: 'method', code: 'provider_refused', message: e.providerMessage },
      ]);
    }
    // Anything else leaves the outcome unknown: the provider may have made the payment, which status sync reads by
    // the attempt's order id (and a payment that arrives for it pays the link all the same).
    await deps.attempts.recordFailure(attempt, 'unknown', e instanceof ProviderUnavailableError ? e.why : 'error');
    if (e instanceof ProviderUnavailableError) throw providerUnavailable();
    throw e;
  }
}

/**
 * The buyer picks how to pay (docs/product-decisions.md, "attempts"). Only a pending link can be selected (a due one reads
 * as expired), and the buyer may change their mind while it stays pending. Each select is an attempt: attempt n is
 * committed first (with the amounts asked, at the method's rate), then the provider of the link's mode and method is
 * called outside any transaction, then its answer is written on the attempt and on the link, in one statement and
 * only if the link is still pending and this is still its newest attempt. A provider that is down is a 503 and a
 * refusal a 422; either way the link keeps what it showed before. The attempts this one replaces are canceled at
 * their provider. A test link's attempts go to the sandbox, never to a real provider.
 */
export async function selectMethod(deps: LinkDeps, identity: Identity, command: SelectMethodCommand): Promise<BuyerLink> {
  requireService(identity);
  checkShape(command);
  const link = await loadLink(deps, command.id);
  if (link.status !== 'pending') throw linkNotPending(link.status);
  const shop = await deps.shops.getShop(link.shopId, LINKS_SERVICE_IDENTITY);
  await requireOffered(deps, link, shop.payment_methods, command.method, command.network);
  const feeBps = command.method === 'sbp' ? link.sbpBps : link.cryptoBps;
  const amounts = computeAmounts(link.amount, feeBps, link.feePayer);
  const provider = deps.providers.forPayment(modeOfLivemode(link.livemode), command.method);
  const attempt = await deps.attempts.open(link.id, {
    provider: provider.name,
    method: command.method,
    networkAsked: command.network,
    feeBps,
    payerAmount: amounts.payerAmount,
    merchantCredit: amounts.merchantCredit,
    platformRevenue: amounts.platformRevenue,
  });
  if (!attempt) return notPending(deps, link.id);
  const payment = await callProvider(deps, provider, link, attempt, command.network);
  deps.crashPoints?.reached('links.after-create-before-record');
  const answer = await deps.attempts.recordAnswer(attempt, payment);
  if (answer.kind === 'not_selected') {
    cancelReplaced(deps, [{ ...attempt, payment }]);
    // A newer select overtook this one: the buyer sees the link as that one left it.
    const now = await loadLink(deps, link.id);
    if (now.status !== 'pending') throw linkNotPending(now.status);
    return withShopName(deps, now, shop);
  }
  cancelReplaced(deps, answer.superseded);
  // The answer is built from what the select holds (the link as its answer left it, the shop it read, the attempt's
  // progress as the answer found it): reading them again would cost round trips and show nothing newer.
  const methods = await offeredMethods(deps, answer.link, shop.payment_methods);
  return { link: answer.link, shopName: shop.name, checkout: { methods, progress: answer.progress } };
}

/** The checkout page's read: the buyer-safe view, a due link already expired. */
export async function getPublicLink(deps: LinkDeps, identity: Identity, id: string): Promise<BuyerLink> {
  requireService(identity);
  return withShopName(deps, await loadLink(deps, id));
}
