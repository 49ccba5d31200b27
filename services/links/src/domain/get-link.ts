import type { Identity, MerchantIdentity } from '@pl/contracts';
import { notFound } from '@pl/errors';
import { assertLinkVisible, requireMerchant, scopeOf } from './access';
import type { LinkRecord } from './link';
import { LINKS_OWN_MODE, type LinkDeps, type LinkReach } from './ports';

/** A pending link past its expiry is expired first, so it is never read as pending. */
export async function expireIfDue(deps: Pick<LinkDeps, 'links' | 'now'>, link: LinkRecord, reach: LinkReach): Promise<LinkRecord> {
  if (link.status !== 'pending' || link.expiresAt.getTime() > deps.now().getTime()) return link;
  // The store decides by the database clock; when it refuses, someone else moved the link or it is not due yet.
  return (await deps.links.transition(link.id, 'expired', reach)) ?? (await deps.links.findById(link.id, reach)) ?? link;
}

/**
 * Any link by id in its own mode, expired on read when due; unknown → 404. For the buyer's and the provider's
 * paths, which reach a link by its id and passed their own access checks.
 */
export async function loadLink(deps: Pick<LinkDeps, 'links' | 'now'>, id: string): Promise<LinkRecord> {
  const link = await deps.links.findById(id, LINKS_OWN_MODE);
  if (!link) throw notFound('Payment link not found');
  return expireIfDue(deps, link, LINKS_OWN_MODE);
}

/**
 * The link if the caller may see it: unknown, or of the other mode → 404; another merchant's (or another shop's
 * for a cashier key) → 403. A due pending link is expired first.
 */
export async function loadVisibleLink(deps: LinkDeps, who: MerchantIdentity, id: string): Promise<LinkRecord> {
  // Only the mode narrows the read: a link of another merchant in the caller's mode must be found, to be a 403.
  const link = await deps.links.findById(id, { mode: who.mode });
  if (!link) throw notFound('Payment link not found');
  assertLinkVisible(link, who);
  return expireIfDue(deps, link, scopeOf(who));
}

export async function getLink(deps: LinkDeps, identity: Identity, id: string): Promise<LinkRecord> {
  return loadVisibleLink(deps, requireMerchant(identity), id);
}
