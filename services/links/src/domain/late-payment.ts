import { invalidField, latePaymentResolved, notFound, unavailable } from '@pl/errors';
import { isAddressOf, isCryptoNetwork } from './crypto-address';
import type { FinalStatus, LinkRecord, OutboxEntry } from './link';
import { lateSettled } from './payment-event';
import { LINKS_OWN_MODE, type LinkStore } from './ports';
import type { ProviderRegistry } from '@pl/providers';

/** A provider's `paid` for a link, as it arrived here: what a late payment is recorded from. */
export interface ArrivedPayment {
  /** The record's id, should it become one. */
  id: string;
  linkId: string;
  provider: string;
  gatewayPaymentId: string;
  /** This service's clock when the callback reached it. */
  receivedAt: Date;
}

/**
 * A payment confirmed for a link that had already left `pending`: the buyer's money arrived, the link stayed
 * as it was, and an operator refunds or settles it by hand. Amounts in kopecks.
 */
export interface LatePayment {
  id: string;
  linkId: string;
  /** The link's state when the payment arrived. */
  linkStatus: FinalStatus;
  provider: string;
  gatewayPaymentId: string;
  /** What the buyer was asked to pay, as the link held it then. */
  payerAmount: number;
  /** What settling it credits the shop, and what the platform earns, as the link held them then. */
  merchantCredit: number;
  platformRevenue: number;
  /** How an operator resolved it (once), and when; null while it waits. */
  resolution: 'settled' | 'refunded' | null;
  resolvedAt: Date | null;
  receivedAt: Date;
  /** Whose link it is, so the operator knows whom to talk to. */
  merchantId: string;
  shopId: number;
  orderId: string | null;
  /** The link's mode: a late test payment is no money to refund, though it is recorded the same way. */
  livemode: boolean;
}

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
 * The operator's resolve of late payments (money-after-payment.md, 4): each record is resolved once, its write (a
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
