import type { Identity, SettlePaymentCommand } from '@pl/contracts';
import { crashPoint } from '@pl/config';
import { linkNotPending, notFound, unavailable } from '@pl/errors';
import { requireService } from './access';
import type { LinkRecord } from './link';
import { paymentSucceeded } from './payment-event';
import type { LinkDeps } from './ports';

/** Reads and settles attempted before giving up on a link whose selection keeps changing under the payment. */
const MAX_TRIES = 3;

/**
 * The link a provider's payment id names: the one that stored it at selection, or, for a link paid
 * with no method selected, the one the provider derives from the id (a link that selected another
 * payment does not match).
 */
async function findSettledLink(deps: LinkDeps, command: SettlePaymentCommand): Promise<LinkRecord> {
  const provider = deps.providers.byName(command.provider);
  if (!provider) throw notFound(`Unknown payment provider ${command.provider}`);
  const link = await deps.links.findForPayment(provider.name, command.gateway_payment_id, provider.linkIdFor(command.gateway_payment_id));
  if (!link) throw notFound('Payment not found');
  return link;
}

/**
 * A provider's verdict on a payment (its signature already checked by the gateway). `paid` moves the
 * link to paid and writes `payment.succeeded` to the outbox in the same statement; `failed` moves it
 * to failed. The move is conditional on the link being pending, so of a payment racing a cancel or an
 * expiry exactly one wins, and a repeated callback is a 409 that changes nothing (the gateway answers
 * the provider 200 for it). A link that is due but not yet swept can still be paid: the money arrived.
 *
 * The event is built from the link as read, so the move also requires the link to be still as read; a
 * selection made in between (new amounts) makes it read again. `paid_at` is this service's clock.
 */
export async function settlePayment(deps: LinkDeps, identity: Identity, command: SettlePaymentCommand): Promise<LinkRecord> {
  requireService(identity);
  for (let tries = 1; ; tries += 1) {
    const link = await findSettledLink(deps, command);
    if (link.status !== 'pending') throw linkNotPending(link.status);
    const at = deps.now();
    const event = command.status === 'paid' ? paymentSucceeded({ ...link, status: 'paid', paidAt: at }, deps.newId(), deps.eventsTopic) : null;
    const settled = await deps.links.settle(
      link,
      { to: command.status, gatewayProvider: command.provider, gatewayPaymentId: command.gateway_payment_id, at },
      event,
    );
    if (settled) {
      crashPoint('links.after-settle-commit');
      return settled;
    }
    if (tries === MAX_TRIES) throw unavailable('The payment link kept changing while the payment was settled; retry');
  }
}
