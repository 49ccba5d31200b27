import type { Identity } from '@pl/contracts';
import { linkNotPending } from '@pl/errors';
import { requireMerchant, scopeOf } from './access';
import { loadVisibleLink } from './get-link';
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
  // Explain the refusal in the order of the decisions: 404, then 403, then 409.
  const link = await loadVisibleLink(deps, who, id);
  throw linkNotPending(link.status);
}
