import type { Identity, MerchantIdentity } from '@pl/contracts';
import { notFound } from '@pl/errors';
import { assertLinkVisible, requireMerchant } from './access';
import type { LinkRecord } from './link';
import type { LinkDeps } from './ports';

/**
 * The link if the caller may see it: unknown → 404, another merchant's (or another shop's for a
 * cashier key) → 403. A pending link past its expiry is expired first, so it is never read as pending.
 */
export async function loadVisibleLink(deps: LinkDeps, who: MerchantIdentity, id: string): Promise<LinkRecord> {
  const link = await deps.links.findById(id);
  if (!link) throw notFound('Payment link not found');
  assertLinkVisible(link, who);
  if (link.status !== 'pending' || link.expiresAt.getTime() > deps.now().getTime()) return link;
  // The store decides by the database clock; when it refuses, someone else moved the link or it is not due yet.
  return (await deps.links.transition(link.id, 'expired')) ?? (await deps.links.findById(id)) ?? link;
}

export async function getLink(deps: LinkDeps, identity: Identity, id: string): Promise<LinkRecord> {
  return loadVisibleLink(deps, requireMerchant(identity), id);
}
