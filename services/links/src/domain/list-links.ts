import type { Identity, ListLinksCommand } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import { requireMerchant, scopeOf } from './access';
import { decodeCursor } from './cursor';
import type { LinkPage } from './link-view';
import type { LinkDeps, LinkListQuery, ListedLink } from './ports';

/**
 * The caller's links of its mode, newest first, one keyset page at a time: one row beyond the limit is fetched
 * to learn whether another page exists. A cashier key sees its own shop only; a `shop_id` filter must name
 * one of the caller's shops (shops are shared by both modes).
 *
 * No link is ever listed (or filtered) as pending past its expiry. The sweeper keeps such links rare, so a
 * page is read first, and only when it holds one that looks due are the merchant's due links expired and
 * the page read again (the application clock decides whether to try, the database's what is due, as on a
 * read of one link). A filter on `expired` must find links the sweeper has not reached yet, so it expires first.
 */
export async function listLinks(deps: LinkDeps, identity: Identity, command: ListLinksCommand, publicBaseUrl: string): Promise<LinkPage> {
  const who = requireMerchant(identity);
  const after = command.cursor === null ? null : decodeCursor(command.cursor);
  const scope = scopeOf(who);
  if (scope.shopId !== undefined && command.shop_id !== null && command.shop_id !== scope.shopId) {
    throw forbidden("shop_id does not match the cashier key's shop");
  }
  // A filter names a shop, so it follows create's rule: an unknown shop is 404, another merchant's is 403
  // (not an empty page, which would tell nothing apart from "no links yet").
  if (command.shop_id !== null && scope.shopId === undefined) await deps.shops.getShop(command.shop_id, who);
  const query: LinkListQuery = {
    scope,
    status: command.status,
    shopId: command.shop_id,
    orderId: command.order_id,
    after,
    limit: command.limit + 1,
  };
  if (command.status === 'expired') await deps.links.expireDue(scope);
  let rows = await deps.links.list(query, publicBaseUrl);
  const now = deps.now().getTime();
  const looksDue = (l: ListedLink): boolean => l.status === 'pending' && l.expiresAt.getTime() <= now;
  if (command.status !== 'expired' && rows.some(looksDue)) {
    await deps.links.expireDue(scope);
    rows = await deps.links.list(query, publicBaseUrl);
  }
  return { items: rows.slice(0, command.limit), hasMore: rows.length > command.limit };
}
