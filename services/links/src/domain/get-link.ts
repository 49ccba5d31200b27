import type { Identity, MerchantIdentity } from '@pl/contracts';
import { notFound } from '@pl/errors';
import { assertLinkVisible, requireMerchant } from './access';
import type { LinkRecord } from './link';
import type { LinkDeps } from './ports';

/** A pending link past its expiry is expired first, so it is never read as pending. */
async function expireIfDue(deps: Pick<LinkDeps, 'links' | 'now'>, link: LinkRecord): Promise<LinkRecord> {
  if (link.status !== 'pending' || link.expiresAt.getTime() > deps.now().getTime()) return link;
  // The store decides by the database clock; when it refuses, someone else moved the link or it is not due yet.
  return (await deps.links.transition(link.id, 'expired')) ?? (await deps.links.findById(link.id)) ?? link;
}

/** Any link by id, expired on read when due; unknown → 404. For callers that already passed access checks. */
export async function loadLink(deps: Pick<LinkDeps, 'links' | 'now'>, id: string): Promise<LinkRecord> {
  const link = await deps.links.findById(id);
  if (!link) throw notFound('Payment link not found');
  return expireIfDue(deps, link);
}

/**
 * The link if the caller may see it: unknown → 404, another merchant's (or another shop's for a
 * cashier key) → 403. A due pending link is expired first.
 */
export async function loadVisibleLink(deps: LinkDeps, who: MerchantIdentity, id: string): Promise<LinkRecord> {
  const link = await deps.links.findById(id);
  if (!link) throw notFound('Payment link not found');
  assertLinkVisible(link, who);
  return expireIfDue(deps, link);
}

export async function getLink(deps: LinkDeps, identity: Identity, id: string): Promise<LinkRecord> {
  return loadVisibleLink(deps, requireMerchant(identity), id);
}
