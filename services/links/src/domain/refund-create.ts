import type { CreateRefundCommand, Identity } from '@pl/contracts';
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
import { isAddressOf, isCryptoNetwork } from './crypto-address';
import { keyRefOf } from './idempotency';
import type { LinkRecord } from './link';
import type { IdempotencyKeyRef } from './ports';
import type { PaymentProvider } from '@pl/providers';
import type { RefundDeps, RefundRecord } from './refund';

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
    if (kept) return kept;
  }
  const link = await deps.links.findById(command.payment_link_id, { mode: who.mode });
  if (!link) throw notFound('Payment link not found');
  assertLinkVisible(link, who);
  const destination = destinationFor(link, command.destination);
  if (link.status !== 'paid') throw linkNotPaid(link.status);

  const outcome = await deps.refunds.create({
    id: deps.newId(),
    link,
    amount: command.amount_kopecks,
    reason: command.reason,
    destination,
    provider: providerOf(deps, link),
    key,
  });
  switch (outcome.kind) {
    case 'created':
      return { refund: outcome.refund, replayed: false };
    case 'key_taken': {
      // Our write failed only after the key's first request committed, so its refund is there.
      const kept = key ? await keptRefund(deps, key) : null;
      if (!kept) throw internal('An Idempotency-Key was taken but has no record');
      return kept;
    }
    case 'not_paid':
      throw linkNotPaid(outcome.status);
    case 'exceeds_refundable':
      throw amountExceedsRefundable(formatKopecks(outcome.refundable));
    case 'insufficient_balance':
      throw insufficientBalance();
  }
}
