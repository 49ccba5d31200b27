import type { Identity, ListLinksCommand } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import { requireMerchant, scopeOf } from './access';
import { decodeCursor } from './cursor';
import type { LinkPage } from './link-view';
import type { LinkDeps } from './ports';

/**
 * The caller's links, newest first, one keyset page at a time: one row beyond the limit is fetched
 * to learn whether another page exists. A cashier key sees its own shop only.
 */
export async function listLinks(deps: LinkDeps, identity: Identity, command: ListLinksCommand): Promise<LinkPage> {
  const who = requireMerchant(identity);
  const after = command.cursor === null ? null : decodeCursor(command.cursor);
  const scope = scopeOf(who);
  if (scope.shopId !== undefined && command.shop_id !== null && command.shop_id !== scope.shopId) {
    throw forbidden("shop_id does not match the cashier key's shop");
  }
  // Due links are expired before reading so that none is listed (or filtered) as pending.
  await deps.links.expireDue(who.merchant_id);
  const rows = await deps.links.list({
    scope,
    status: command.status,
    shopId: command.shop_id,
    orderId: command.order_id,
    after,
    limit: command.limit + 1,
  });
  return { items: rows.slice(0, command.limit), hasMore: rows.length > command.limit };
}
