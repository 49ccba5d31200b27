import type { CreateRefundCommand, Identity, Mode } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import {
  amountExceedsRefundable,
  idempotencyConflict,
  insufficientBalance,
  internal,
  invalidField,
  linkNotPaid,
  notFound,
  unavailable,
} from '@pl/errors';
import { assertLinkVisible, requireMerchant } from './access';
import { isAddressOf, isCryptoNetwork } from '@pl/contracts';
import { keyRefOf } from './idempotency';
import type { LinkRecord } from './link';
import { LINKS_OWN_MODE, type IdempotencyKeyRef } from './ports';
import { ProviderRefusedError, ProviderUnavailableError, type PaymentProvider, type RefundState } from '@pl/providers';
import type { RefundDeps, RefundRecord, RefundVerdict } from './refund';
import { refundSettledEvent } from './refund-view';

/** A refund's answer; `replayed` when it is the one kept under the request's Idempotency-Key. */
export interface RefundAnswer {
  refund: RefundRecord;
  replayed: boolean;
}

/**
 * A crypto link's refund goes to the buyer's address on the link's network, which must be one; any other link
 * (SBP, or paid with no method selected) refunds to the payer through the provider and takes no address.
 */
function destinationFor(link: LinkRecord, destination: string | null): string | null {
  if (isCryptoNetwork(link.network)) {
    if (destination === null) throw invalidField('destination', `is required for a refund of a ${link.network} payment`, 'invalid_type');
    if (!isAddressOf(link.network, destination)) throw invalidField('destination', `is not a valid ${link.network} address`);
    return destination;
  }
  if (destination !== null) throw invalidField('destination', 'is only taken for a crypto payment; this one refunds through the provider');
  return null;
}

/**
 * The provider that took the link's payment. A settle stamps it on a link paid with no method selected, so only a
 * link paid before that rule has none: the sandbox's derived payment id was the only way to pay one.
 */
function providerOf(deps: RefundDeps, link: LinkRecord): PaymentProvider {
  if (link.gatewayProvider === null) return deps.providers.sandbox;
  const provider = deps.providers.byName(link.gatewayProvider);
  if (!provider) throw unavailable(`The payment's provider ${link.gatewayProvider} is not configured here`);
  return provider;
}

/**
 * Hands a recorded refund to its provider, after its transaction committed (docs/product-decisions.md: no provider call
 * inside a transaction). Accepted: its gateway refund id is recorded, and a final answer settles it at once. Refused:
 * the refund fails, its ledger posting reversed in the failure's transaction (the settle path). Unknown (timeout,
 * outage): it stays pending with no gateway refund id, for status sync to complete by our refund id, which is the
 * provider's idempotency key. A crash between the record and the call leaves the same pending refund.
 */
async function handToProvider(deps: RefundDeps, provider: PaymentProvider, link: LinkRecord, refund: RefundRecord): Promise<RefundRecord> {
  deps.crashPoints?.reached('links.after-refund-commit');
  const paid = await deps.attempts.findPaid(link.id);
  let accepted: RefundState;
  try {
    accepted = await provider.createRefund(
      {
        refundId: refund.id,
        orderId: paid?.orderId ?? link.id,
        gatewayPaymentId: link.gatewayPaymentId ?? '',
        amountKopecks: refund.amount,
        whole: refund.amount === link.amount,
        destination: refund.destination,
        description: refund.reason,
      },
      { timeoutMs: deps.providerTimeoutMs },
    );
  } catch (e) {
    if (e instanceof ProviderRefusedError) return settleNow(deps, refund, { status: 'failed', failureReason: e.providerMessage.slice(0, 500) });
    if (e instanceof ProviderUnavailableError) {
      deps.warn(
        { refund_id: refund.id, provider: provider.name, why: e.why },
        'refund handed to its provider with no answer; it stays pending for status sync',
      );
      return refund;
    }
    throw e;
  }
  // Null when the id was recorded already: by an earlier hand-over whose answer was lost with the database.
  const recorded =
    (await deps.refunds.recordAcceptance(refund.id, accepted.gatewayRefundId)) ?? (await deps.refunds.findById(refund.id, LINKS_OWN_MODE)) ?? refund;
  if (accepted.status === 'pending') return recorded;
  return settleNow(deps, recorded, {
    status: accepted.status,
    failureReason: accepted.status === 'failed' ? (accepted.failureReason ?? accepted.providerStatus) : null,
  });
}

/** The refund's final word, through the one settle every refund takes (sums, ledger posting and event in one transaction). */
async function settleNow(deps: RefundDeps, refund: RefundRecord, verdict: RefundVerdict): Promise<RefundRecord> {
  const settled = await deps.refunds.settle({ refundId: refund.id }, verdict, (r) => refundSettledEvent(r, deps.newId(), deps.eventsTopic));
  return settled?.refund ?? refund;
}

/**
 * A kept refund whose hand-over to its provider never got an answer recorded (the provider did not answer, or the
 * database went away before its answer was written) is handed over again on the key's repeat: the provider knows a
 * refund by our refund id (its idempotency key, or a read of its state first), so this cannot refund twice, and the
 * merchant's retry gets the provider's refund id instead of a refund no callback could name.
 */
async function handedOver(deps: RefundDeps, mode: Mode, kept: RefundAnswer): Promise<RefundAnswer> {
  if (kept.refund.status !== 'pending' || kept.refund.gatewayRefundId !== null) return kept;
  // The key keeps the refund as its first request answered it: the hand-over may have been recorded since.
  const now = (await deps.refunds.findById(kept.refund.id, LINKS_OWN_MODE)) ?? kept.refund;
  if (now.status !== 'pending' || now.gatewayRefundId !== null) return { refund: now, replayed: true };
  const link = await deps.links.findById(now.paymentLinkId, { mode });
  if (!link) return { refund: now, replayed: true };
  return { refund: await handToProvider(deps, providerOf(deps, link), link, now), replayed: true };
}

/** The refund kept under the key, or null; the key reused for another request is a conflict. */
async function keptRefund(deps: RefundDeps, key: IdempotencyKeyRef): Promise<RefundAnswer | null> {
  const kept = await deps.refunds.findKept(key.scope, key.keySha256);
  if (!kept) return null;
  if (kept.fingerprint !== key.fingerprint) throw idempotencyConflict();
  return { refund: kept.refund, replayed: true };
}

/**
 * A merchant's refund of its paid link, in its mode. Checks run in the order of the decisions: shape (the bus) →
 * link 404 (another mode's is unknown) → ownership 403 → destination 400 → not paid 409 → over refundable 422 →
 * balance 422. The last three are judged in the refund's own transaction under the link's row lock, so concurrent
 * refunds never pass the link's amount, and the ledger's CHECK refuses any that the shop's balance does not cover.
 * With an Idempotency-Key, the first request keeps its refund under the key in that transaction; a repeat answers
 * it as first answered, a concurrent one waits for the first and does the same. A refused refund keeps nothing.
 */
export async function createRefund(deps: RefundDeps, identity: Identity, command: CreateRefundCommand): Promise<RefundAnswer> {
  const who = requireMerchant(identity);
  const key = command.idempotency ? keyRefOf(who, command.idempotency) : null;
  if (key) {
    const kept = await keptRefund(deps, key);
    if (kept) return handedOver(deps, who.mode, kept);
  }
  const link = await deps.links.findById(command.payment_link_id, { mode: who.mode });
  if (!link) throw notFound('Payment link not found');
  assertLinkVisible(link, who);
  const destination = destinationFor(link, command.destination);
  if (link.status !== 'paid') throw linkNotPaid(link.status);

  const provider = providerOf(deps, link);
  const outcome = await deps.refunds.create({
    id: deps.newId(),
    link,
    amount: command.amount_kopecks,
    reason: command.reason,
    destination,
    provider,
    key,
  });
  switch (outcome.kind) {
    case 'created': {
      const refund = await handToProvider(deps, provider, link, outcome.refund);
      if (key) await deps.refunds.keepAnswer(key, refund.id);
      return { refund, replayed: false };
    }
    case 'key_taken': {
      // Our write failed only after the key's first request committed, so its refund is there.
      const kept = key ? await keptRefund(deps, key) : null;
      if (!kept) throw internal('An Idempotency-Key was taken but has no record');
      // The first request may not have handed it over yet (or died before): the same hand-over as a repeat's.
      return handedOver(deps, who.mode, kept);
    }
    case 'not_paid':
      throw linkNotPaid(outcome.status);
    case 'exceeds_refundable':
      throw amountExceedsRefundable(formatKopecks(outcome.refundable));
    case 'insufficient_balance':
      throw insufficientBalance();
  }
}
