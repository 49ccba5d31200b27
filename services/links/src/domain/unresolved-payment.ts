import type { MerchantIdentity } from '@pl/contracts';
import { forbidden, invalidField, latePaymentResolved, notFound, unavailable, unresolvedPaymentResolved, type AppError } from '@pl/errors';
import { ProviderRefusedError, ProviderUnavailableError, type ProviderRegistry, type RefundState } from '@pl/providers';
import { isAddressOf, isCryptoNetwork } from '@pl/contracts';
import type { LinkRecord, OutboxEntry, UnresolvedPayment } from './link';
import { lateSettled, unresolvedEvent } from './payment-event';
import type { RefundRecord, RefundStore } from './refund';
import { refundSettledEvent } from './refund-view';

/** The refund an unresolved payment's refund records (pending; handed to its provider once committed). */
export interface UnresolvedRefund {
  id: string;
  destination: string | null;
  reason: string;
}

/** How a resolve ended: resolved now (with what it wrote), or refused as the record stands. */
export type UnresolvedResolution =
  | {
      kind: 'resolved';
      late: UnresolvedPayment;
      ledgerTransactionId: string | null;
      refundId: string | null;
      /** The events the resolve committed, for the relay's hand-over. */
      events: OutboxEntry[];
    }
  | { kind: 'already_resolved' }
  | { kind: 'not_found' };

/**
 * Resolving unresolved payments (docs/money.md, "Unresolved payments"): each record is resolved once, its write (a
 * ledger posting and events, or a refund) in the transaction that marks it resolved.
 */
export interface UnresolvedResolutions {
  findById(id: string): Promise<UnresolvedPayment | null>;
  settle(id: string, eventsOf: (link: LinkRecord, settled: UnresolvedPayment) => OutboxEntry[]): Promise<UnresolvedResolution>;
  refund(
    id: string,
    refund: UnresolvedRefund,
    eventOf: (link: LinkRecord, refunded: UnresolvedPayment) => OutboxEntry,
  ): Promise<UnresolvedResolution>;
}

export interface UnresolvedResolveDeps {
  unresolvedPayments: UnresolvedResolutions;
  /** A refund's provider answer and its failure go the way of every refund's. */
  refunds: Pick<RefundStore, 'recordAcceptance' | 'settle'>;
  providers: Pick<ProviderRegistry, 'byName'>;
  /** Deadline of the provider's refund call. */
  providerTimeoutMs: number;
  newId: () => string;
  eventsTopic: string;
  warn: (fields: Record<string, unknown>, message: string) => void;
}

/** Who resolves: a merchant (its own records, in its credential's mode; never an AML hold) or an operator (any). */
export type Resolver = { kind: 'operator' } | { kind: 'merchant'; who: MerchantIdentity };

export type UnresolvedResolveCommand =
  { id: string; action: 'settle'; destination: null } | { id: string; action: 'refund'; destination: string | null };

/** Today's name of the late payments' resolve command (`payment:late:resolve`). */
export type LateResolveCommand = UnresolvedResolveCommand;

/** What the refund tells the buyer's side, and the merchant's refund list. */
const REFUND_REASON: Readonly<Record<UnresolvedPayment['reason'], string>> = {
  late: 'Payment arrived after the link was closed; returned to the payer',
  duplicate: 'A second payment for a link already paid; returned to the payer',
  underpaid: 'Less than asked arrived; returned to the payer',
  overpaid: 'More than asked arrived; the surplus returned to the payer',
  aml_hold: 'Payment held for AML checks; returned to the payer',
};

/**
 * A record as a merchant may see it, by the links' rule: unknown, or of the other mode, 404; another merchant's (or
 * another shop's, for a cashier key) 403. An operator sees every one.
 */
export function assertUnresolvedVisible(resolver: Resolver, unresolved: UnresolvedPayment | null): asserts unresolved is UnresolvedPayment {
  if (!unresolved) throw notFound('Unresolved payment not found');
  if (resolver.kind === 'operator') return;
  const { who } = resolver;
  if (unresolved.livemode !== (who.mode === 'live')) throw notFound('Unresolved payment not found');
  if (unresolved.merchantId !== who.merchant_id) throw forbidden('Unresolved payment belongs to another merchant');
  if (who.shop_id !== undefined && unresolved.shopId !== who.shop_id)
    throw forbidden("Unresolved payment belongs to another shop than the cashier key's");
}

/**
 * Resolves an unresolved payment once. `settle` credits the shop what arrived less the fee at its attempt's method rate
 * (ledger type `unresolved_payment`; `late_payment` and `payment.late_settled` too for a late one; never a
 * `payment.succeeded`), with `unresolved_payment.settled`. `refund` records a refund of what arrived to the payer and
 * commits it before its provider is called (naming the paying attempt's order id); the shop's balance is not touched. A
 * crypto payment's refund needs the buyer's address on its network, anything else takes none (as a merchant's refund).
 * Unknown → 404; an AML hold → 403 to a merchant; resolved already → 409 (`late_payment.err.already_resolved` through
 * the late commands, `unresolved_payment.err.already_resolved` otherwise).
 */
export async function resolveUnresolvedPayment(
  deps: UnresolvedResolveDeps,
  resolver: Resolver,
  command: UnresolvedResolveCommand,
  alreadyResolved: () => AppError = unresolvedPaymentResolved,
): Promise<UnresolvedResolution & { kind: 'resolved' }> {
  const found = await deps.unresolvedPayments.findById(command.id);
  assertUnresolvedVisible(resolver, found);
  if (resolver.kind === 'merchant' && found.reason === 'aml_hold') throw forbidden('A payment held for AML checks is resolved by the platform');
  if (found.resolution !== null) throw alreadyResolved();
  let resolution: UnresolvedResolution;
  if (command.action === 'settle') {
    resolution = await deps.unresolvedPayments.settle(found.id, (link, settled) => {
      const at = settled.resolvedAt ?? new Date();
      const events = settled.reason === 'late' ? [lateSettled(link, settled, at, deps.newId(), deps.eventsTopic)] : [];
      return [...events, unresolvedEvent('unresolved_payment.settled', settled, at, deps.newId(), deps.eventsTopic)];
    });
  } else {
    const destination = refundDestination(found.network, command.destination);
    const provider = deps.providers.byName(found.provider);
    if (!provider) throw unavailable(`The payment's provider ${found.provider} is not configured here`);
    const refund: UnresolvedRefund = { id: deps.newId(), destination, reason: REFUND_REASON[found.reason] };
    resolution = await deps.unresolvedPayments.refund(found.id, refund, (_link, refunded) =>
      unresolvedEvent('unresolved_payment.refunded', refunded, refunded.resolvedAt ?? new Date(), deps.newId(), deps.eventsTopic),
    );
    if (resolution.kind === 'resolved') await handToProvider(deps, resolution.late, refund);
  }
  if (resolution.kind === 'not_found') throw notFound('Unresolved payment not found');
  if (resolution.kind === 'already_resolved') throw alreadyResolved();
  return resolution;
}

/** The operators' late payment resolve (`payment:late:resolve`): the same, with the late payments' 409. */
export function resolveLatePayment(deps: UnresolvedResolveDeps, command: LateResolveCommand): Promise<UnresolvedResolution & { kind: 'resolved' }> {
  return resolveUnresolvedPayment(deps, { kind: 'operator' }, command, latePaymentResolved);
}

/**
 * Hands the committed refund to the payment's provider (never inside a transaction), naming the attempt that paid
 * (its order id) and the payment. Accepted: its gateway refund id is recorded, a final answer settles it at once.
 * Refused: the refund fails through the refunds' settle, which returns the record to unresolved and reverses its
 * posting in the failure's transaction. Unknown (timeout, outage): it stays pending for status sync, by our refund id.
 */
async function handToProvider(deps: UnresolvedResolveDeps, unresolved: UnresolvedPayment, refund: UnresolvedRefund): Promise<void> {
  const provider = deps.providers.byName(unresolved.provider);
  if (!provider) return;
  let accepted: RefundState;
  try {
    accepted = await provider.createRefund(
      {
        refundId: refund.id,
        orderId: unresolved.providerOrderId ?? unresolved.linkId,
        gatewayPaymentId: unresolved.gatewayPaymentId,
        amountKopecks: unresolved.amount,
        whole: unresolved.reason !== 'overpaid',
        destination: refund.destination,
        description: refund.reason,
      },
      { timeoutMs: deps.providerTimeoutMs },
    );
  } catch (e) {
    if (e instanceof ProviderRefusedError) {
      await settleRefund(deps, refund.id, { status: 'failed', failureReason: e.providerMessage.slice(0, 500) });
      return;
    }
    if (e instanceof ProviderUnavailableError) {
      deps.warn(
        { refund_id: refund.id, unresolved_payment_id: unresolved.id, provider: provider.name, why: e.why },
        'unresolved payment refund handed to its provider with no answer; it stays pending for status sync',
      );
      return;
    }
    throw e;
  }
  await deps.refunds.recordAcceptance(refund.id, accepted.gatewayRefundId);
  if (accepted.status !== 'pending')
    await settleRefund(deps, refund.id, {
      status: accepted.status,
      failureReason: accepted.status === 'failed' ? (accepted.failureReason ?? accepted.providerStatus) : null,
    });
}

function settleRefund(deps: UnresolvedResolveDeps, refundId: string, verdict: { status: 'succeeded' | 'failed'; failureReason: string | null }) {
  return deps.refunds.settle({ refundId }, verdict, (r: RefundRecord) => refundSettledEvent(r, deps.newId(), deps.eventsTopic));
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
