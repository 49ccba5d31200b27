import { invalidField, latePaymentResolved, notFound, unavailable } from '@pl/errors';
import { isAddressOf, isCryptoNetwork } from './crypto-address';
import type { LatePayment, LinkRecord, OutboxEntry } from './link';
import { lateSettled } from './payment-event';
import { LINKS_OWN_MODE, type LinkStore } from './ports';
import type { ProviderRegistry } from '@pl/providers';

/** The refund a late payment's resolve creates: the provider accepted it under `gatewayRefundId`. */
export interface LateRefund {
  id: string;
  destination: string | null;
  reason: string;
  gatewayRefundId: string;
}

/** How a resolve ended: resolved now (with what it wrote), or refused as the record stands. */
export type LateResolution =
  | {
      kind: 'resolved';
      late: LatePayment;
      ledgerTransactionId: string | null;
      refundId: string | null;
      /** The event the resolve committed (a settle's `payment.late_settled`), for the relay's hand-over. */
      event: OutboxEntry | null;
    }
  | { kind: 'already_resolved' }
  | { kind: 'not_found' };

/**
 * The operator's resolve of late payments (docs/money.md, "Late payments"): each record is resolved once, its write (a
 * ledger posting and event, or a refund) in the transaction that marks it resolved.
 */
export interface LateResolutions {
  findById(id: string): Promise<LatePayment | null>;
  settle(id: string, eventOf: (link: LinkRecord, late: LatePayment) => OutboxEntry): Promise<LateResolution>;
  refund(id: string, refund: LateRefund): Promise<LateResolution>;
}

export interface LateResolveDeps {
  latePayments: LateResolutions;
  links: Pick<LinkStore, 'findById'>;
  providers: Pick<ProviderRegistry, 'byName'>;
  /** Deadline of the provider's refund call. */
  providerTimeoutMs: number;
  newId: () => string;
  eventsTopic: string;
}

export type LateResolveCommand = { id: string; action: 'settle'; destination: null } | { id: string; action: 'refund'; destination: string | null };

/** What the refund of a late payment tells the buyer's side, and the merchant's refund list. */
const LATE_REFUND_REASON = 'Payment arrived after the link was closed; returned to the payer';

/**
 * Resolves a late payment once: `settle` credits the shop as a paid link would have (ledger type `late_payment`,
 * with `payment.late_settled`; never a `payment.succeeded` for the closed link), `refund` gives the whole payment
 * back to the buyer through its provider without touching the shop's balance. A crypto payment's refund needs the
 * buyer's address on its network, anything else takes none (as a merchant's refund). Unknown → 404, resolved
 * already → 409 late_payment.err.already_resolved. Test late payments resolve the same way, in the test accounts.
 */
export async function resolveLatePayment(deps: LateResolveDeps, command: LateResolveCommand): Promise<LateResolution & { kind: 'resolved' }> {
  const late = await deps.latePayments.findById(command.id);
  if (!late) throw notFound('Late payment not found');
  if (late.resolution !== null) throw latePaymentResolved();
  let resolution: LateResolution;
  if (command.action === 'settle') {
    resolution = await deps.latePayments.settle(late.id, (link, resolved) =>
      lateSettled(link, resolved, resolved.resolvedAt ?? new Date(), deps.newId(), deps.eventsTopic),
    );
  } else {
    const link = await deps.links.findById(late.linkId, LINKS_OWN_MODE);
    if (!link) throw notFound('Payment link not found');
    const destination = refundDestination(link.network, command.destination);
    const provider = deps.providers.byName(late.provider);
    if (!provider) throw unavailable(`The payment's provider ${late.provider} is not configured here`);
    const refundId = deps.newId();
    // Called before the resolve's transaction, never inside it. The order id is the link's: what the sandbox (the only
    // provider whose late payments exist so far) ignores; a real provider's refund names the paying attempt's.
    const accepted = await provider.createRefund(
      {
        refundId,
        orderId: link.id,
        gatewayPaymentId: late.gatewayPaymentId,
        amountKopecks: late.payerAmount,
        whole: true,
        destination,
        description: LATE_REFUND_REASON,
      },
      { timeoutMs: deps.providerTimeoutMs },
    );
    resolution = await deps.latePayments.refund(late.id, {
      id: refundId,
      destination,
      reason: LATE_REFUND_REASON,
      gatewayRefundId: accepted.gatewayRefundId,
    });
  }
  if (resolution.kind === 'not_found') throw notFound('Late payment not found');
  if (resolution.kind === 'already_resolved') throw latePaymentResolved();
  return resolution;
}

/** As a merchant's refund: a crypto network's payment goes back to a valid address on it, any other through the provider. */
function refundDestination(network: string | null, destination: string | null): string | null {
  if (isCryptoNetwork(network)) {
    if (destination === null) throw invalidField('destination', `is required for a refund of a ${network} payment`, 'invalid_type');
    if (!isAddressOf(network, destination)) throw invalidField('destination', `is not a valid ${network} address`);
    return destination;
  }
  if (destination !== null) throw invalidField('destination', 'is only taken for a crypto payment; this one refunds through the provider');
  return null;
}
