import type { Identity, SettlePaymentCommand } from '@pl/contracts';
import { crashPoint } from '@pl/config';
import { linkNotPending, notFound } from '@pl/errors';
import { requireService } from './access';
import type { LinkRecord } from './link';
import { paymentSucceeded } from './payment-event';
import type { LinkDeps } from './ports';

/**
 * The link a provider's payment id names: the one that stored it at selection, or, for a link paid
 * with no method selected, the one the provider derives from the id (a link that selected another
 * payment does not match).
 */
async function findSettledLink(deps: LinkDeps, command: SettlePaymentCommand): Promise<LinkRecord> {
  const provider = deps.providers.byName(command.provider);
  if (!provider) throw notFound(`Unknown payment provider ${command.provider}`);
  const stored = await deps.links.findByGatewayPayment(provider.name, command.gateway_payment_id);
  if (stored) return stored;
  const linkId = provider.linkIdFor(command.gateway_payment_id);
  const link = linkId === null ? null : await deps.links.findById(linkId);
  if (!link || link.gatewayPaymentId !== null) throw notFound('Payment not found');
  return link;
}

/**
 * A provider's verdict on a payment (its signature already checked by the gateway). `paid` moves the
 * link to paid and writes `payment.succeeded` to the outbox in the same transaction; `failed` moves it
 * to failed. The move is conditional on the link being pending, so of a payment racing a cancel or an
 * expiry exactly one wins, and a repeated callback is a 409 that changes nothing (the gateway answers
 * the provider 200 for it). A link that is due but not yet swept can still be paid: the money arrived.
 */
export async function settlePayment(deps: LinkDeps, identity: Identity, command: SettlePaymentCommand): Promise<LinkRecord> {
  requireService(identity);
  const link = await findSettledLink(deps, command);
  const eventId = deps.newId();
  const settled = await deps.links.settle(
    link.id,
    { to: command.status, gatewayProvider: command.provider, gatewayPaymentId: command.gateway_payment_id },
    (paid) => paymentSucceeded(paid, eventId, deps.eventsTopic),
  );
  if (settled) {
    crashPoint('links.after-settle-commit');
    return settled;
  }
  const now = (await deps.links.findById(link.id)) ?? link;
  throw linkNotPending(now.status);
}
