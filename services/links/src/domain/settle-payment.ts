import type { Identity, SettlePaymentCommand } from '@pl/contracts';
import { linkNotPending, notFound, unavailable } from '@pl/errors';
import { requireService } from './access';
import type { LinkRecord } from './link';
import { paymentSucceeded } from './payment-event';
import { LINKS_OWN_MODE, type LinkDeps } from './ports';

/** Reads and settles attempted before giving up on a link whose selection keeps changing under the payment. */
const MAX_TRIES = 3;

/**
 * The link a provider's payment id names: the one that stored it at selection, or, for a link paid
 * with no method selected, the one the provider derives from the id. A pending link that selected
 * another payment does not match: it awaits that one. A `paid` whose derived link has already left
 * pending with another payment does: a second payment for a settled link is money all the same, and
 * is recorded as a late payment. A payment reaches its link in the link's own mode.
 */
async function findSettledLink(deps: LinkDeps, command: SettlePaymentCommand): Promise<LinkRecord> {
  const provider = deps.providers.byName(command.provider);
  if (!provider) throw notFound(`Unknown payment provider ${command.provider}`);
  const derivedId = provider.linkIdFor(command.gateway_payment_id);
  const link = await deps.links.findForPayment(provider.name, command.gateway_payment_id, derivedId, LINKS_OWN_MODE);
  if (link) return link;
  if (derivedId !== null && command.status === 'paid') {
    const derived = await deps.links.findById(derivedId, LINKS_OWN_MODE);
    if (derived && derived.status !== 'pending') return derived;
  }
  throw notFound('Payment not found');
}

/** The repeat of the callback that paid `link`: it changes nothing and records nothing. */
const isThePaymentThatPaid = (link: LinkRecord, command: SettlePaymentCommand): boolean =>
  link.status === 'paid' && link.gatewayProvider === command.provider && link.gatewayPaymentId === command.gateway_payment_id;

/**
 * A verdict for a link that has left pending (which it never returns to): 409 and the link stays as it is.
 * A `paid` is the buyer's money, though, so unless it repeats the payment that paid the link it is recorded
 * as a late payment first, once per provider payment. The 409 (which the gateway answers the provider 200)
 * goes only after the record committed: a failed write is an error the provider retries, never an answer
 * that lets it forget the payment.
 */
async function refuseSettled(deps: LinkDeps, link: LinkRecord, command: SettlePaymentCommand): Promise<never> {
  if (command.status === 'paid' && !isThePaymentThatPaid(link, command)) {
    await deps.latePayments.recordIfLate(
      {
        id: deps.newId(),
        linkId: link.id,
        provider: command.provider,
        gatewayPaymentId: command.gateway_payment_id,
        receivedAt: deps.now(),
      },
      LINKS_OWN_MODE,
    );
  }
  throw linkNotPending(link.status);
}

/**
 * A provider's verdict on a payment (its signature already checked by the gateway). `paid` moves the
 * link to paid and writes `payment.succeeded` to the outbox in the same statement; `failed` moves it
 * to failed. The move is conditional on the link being pending, so of a payment racing a cancel or an
 * expiry exactly one wins, and a repeated callback is a 409 that changes nothing (the gateway answers
 * the provider 200 for it). A link that is due but not yet swept can still be paid: the money arrived.
 * A `paid` that loses (the link expired, was canceled or failed first) is recorded as a late payment.
 *
 * The event is built from the link as read, so the move also requires the link to be still as read; a
 * failed move reads the link again: a selection made in between (new amounts) is settled at the new
 * amounts, a move made in between (the sweeper, a cancel) makes the payment late. So every `paid` is
 * either settled or recorded before it is answered. `paid_at` is this service's clock.
 */
export async function settlePayment(deps: LinkDeps, identity: Identity, command: SettlePaymentCommand): Promise<LinkRecord> {
  requireService(identity);
  return settleVerdict(deps, command);
}

/** {@link settlePayment} past its access check: the one path every verdict takes, a provider's or the simulator's. */
export async function settleVerdict(deps: LinkDeps, command: SettlePaymentCommand): Promise<LinkRecord> {
  for (let tries = 1; ; tries += 1) {
    const link = await findSettledLink(deps, command);
    if (link.status !== 'pending') return refuseSettled(deps, link, command);
    if (tries > MAX_TRIES) throw unavailable('The payment link kept changing while the payment was settled; retry');
    const at = deps.now();
    const event = command.status === 'paid' ? paymentSucceeded({ ...link, status: 'paid', paidAt: at }, deps.newId(), deps.eventsTopic) : null;
    const settled = await deps.links.settle(
      link,
      { to: command.status, gatewayProvider: command.provider, gatewayPaymentId: command.gateway_payment_id, at },
      event,
    );
    if (settled) {
      deps.crashPoints?.reached('links.after-settle-commit');
      return settled;
    }
  }
}
