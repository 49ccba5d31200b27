import type { CancelLinkOnceCommand, Identity, MerchantIdentity } from '@pl/contracts';
import { linkNotPending } from '@pl/errors';
import { requireMerchant, scopeOf } from './access';
import { loadVisibleLink } from './get-link';
import { keptAnswer, keyRefOf, winnerAnswer, type LinkAnswer } from './idempotency';
import type { LinkRecord } from './link';
import type { LinkDeps } from './ports';

/**
 * Cancels a pending link. The move is one conditional update, so of two concurrent cancels (or a
 * cancel racing a payment or expiry) exactly one wins; the loser reads the winner's state.
 */
export async function cancelLink(deps: LinkDeps, identity: Identity, id: string): Promise<LinkRecord> {
  const who = requireMerchant(identity);
  const canceled = await deps.links.transition(id, 'canceled', scopeOf(who));
  if (canceled) return canceled;
  return refuse(deps, who, id);
}

/** Explains a cancel that moved nothing, in the order of the decisions: 404, then 403, then 409. */
async function refuse(deps: LinkDeps, who: MerchantIdentity, id: string): Promise<never> {
  const link = await loadVisibleLink(deps, who, id);
  throw linkNotPending(link.status);
}

/**
 * A cancel that carried an Idempotency-Key: the first one cancels the link and keeps the key with the move, in
 * one statement; a retry gets that answer again (not the 409 a second cancel would get). A concurrent cancel
 * with the same key waits for the first one's row lock, finds the link moved, and then finds the first one's
 * record. The key reused for another link (or body) is a conflict. A refused cancel keeps nothing.
 */
export async function cancelLinkOnce(deps: LinkDeps, identity: Identity, command: CancelLinkOnceCommand): Promise<LinkAnswer> {
  const who = requireMerchant(identity);
  const key = keyRefOf(who, command.idempotency);
  const kept = await keptAnswer(deps.idempotency, key);
  if (kept) return kept;
  const canceled = await deps.idempotency.cancel(command.id, scopeOf(who), key);
  if (canceled === 'key_taken') return winnerAnswer(deps.idempotency, key);
  if (canceled) return { link: canceled, replayed: false };
  return (await keptAnswer(deps.idempotency, key)) ?? refuse(deps, who, command.id);
}
