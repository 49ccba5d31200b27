import type { Identity, SimulatePaymentCommand } from '@pl/contracts';
import { linkNotPending, notFound } from '@pl/errors';
import { requireService } from './access';
import { expireIfDue } from './get-link';
import type { LinkRecord } from './link';
import { LINKS_OWN_MODE, type LinkDeps } from './ports';
import { withShopName, type BuyerLink } from './select-method';
import { settleVerdict } from './settle-payment';

/** The payment a provider's callback for `link` would name: the one selected, else the sandbox's derived one. */
function paymentOf(deps: LinkDeps, link: LinkRecord): { provider: string; gatewayPaymentId: string } {
  if (link.gatewayProvider !== null && link.gatewayPaymentId !== null) {
    return { provider: link.gatewayProvider, gatewayPaymentId: link.gatewayPaymentId };
  }
  const sandbox = deps.providers.sandbox;
  return { provider: sandbox.name, gatewayPaymentId: sandbox.paymentIdFor(link.id) };
}

/**
 * The test checkout's stand-in for the provider: `paid` or `failed` for a test link, settled through the same path
 * as a provider's callback (event, late payment and all), so what a merchant tests is what live payments do. A live
 * link is not found here: the simulator never settles real money. A link that is no longer pending (a due one reads
 * as expired) is refused before anything is settled; one that leaves pending meanwhile is a late callback.
 */
export async function simulatePayment(deps: LinkDeps, identity: Identity, command: SimulatePaymentCommand): Promise<BuyerLink> {
  requireService(identity);
  const found = await deps.links.findById(command.id, { mode: 'test' });
  if (!found) throw notFound('Payment link not found');
  const link = await expireIfDue(deps, found, LINKS_OWN_MODE);
  if (link.status !== 'pending') throw linkNotPending(link.status);
  const payment = paymentOf(deps, link);
  const settled = await settleVerdict(deps, {
    provider: payment.provider,
    gateway_payment_id: payment.gatewayPaymentId,
    order_id: null,
    status: command.status,
  });
  return withShopName(deps, settled);
}
