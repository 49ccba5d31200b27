import type { Identity, ListUnresolvedCommand, ResolveUnresolvedCommand, UnresolvedPaymentPage, UnresolvedPaymentView } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import { requireMerchant, scopeOf } from './access';
import { decodeCursor, encodeCursor } from './cursor';
import type { UnresolvedPayment } from './link';
import { unresolvedView } from './payment-event';
import type { ShopDirectory, UnresolvedFilter } from './ports';
import { assertUnresolvedVisible, resolveUnresolvedPayment, type UnresolvedResolveDeps } from './unresolved-payment';

/** What the merchants' routes read and resolve through. */
export interface UnresolvedApiDeps extends UnresolvedResolveDeps {
  unresolvedList: { listBy(filter: UnresolvedFilter): Promise<UnresolvedPayment[]> };
  shops: ShopDirectory;
}

/** A record's keyset position: when it arrived (milliseconds, as this service's clock stamped it) and its id. */
const cursorOf = (u: UnresolvedPayment): string => encodeCursor({ createdAtMicros: BigInt(u.receivedAt.getTime()) * 1000n, id: u.id });

/** One unresolved payment of the caller's mode: unknown (or of the other mode) 404, another merchant's 403. */
export async function getUnresolved(deps: UnresolvedApiDeps, identity: Identity, id: string): Promise<UnresolvedPaymentView> {
  const who = requireMerchant(identity);
  const found = await deps.unresolvedPayments.findById(id);
  assertUnresolvedVisible({ kind: 'merchant', who }, found);
  return unresolvedView(found);
}

/**
 * The caller's unresolved payments of its mode, newest first, a keyset page at a time (one row beyond the limit tells
 * whether another page follows). A shop filter follows every list's rule: unknown 404, another merchant's 403; a
 * cashier key sees its own shop only.
 */
export async function listUnresolved(deps: UnresolvedApiDeps, identity: Identity, command: ListUnresolvedCommand): Promise<UnresolvedPaymentPage> {
  const who = requireMerchant(identity);
  const after = command.cursor === null ? null : decodeCursor(command.cursor);
  const scope = scopeOf(who);
  if (scope.shopId !== undefined && command.shop_id !== null && command.shop_id !== scope.shopId) {
    throw forbidden("shop_id does not match the cashier key's shop");
  }
  if (command.shop_id !== null && scope.shopId === undefined) await deps.shops.getShop(command.shop_id, who);
  const rows = await deps.unresolvedList.listBy({
    merchantId: who.merchant_id,
    livemode: who.mode === 'live',
    shopId: scope.shopId ?? command.shop_id,
    reason: command.reason,
    status: command.status,
    before: after === null ? null : { receivedAt: new Date(Number(after.createdAtMicros / 1000n)), id: after.id },
    limit: command.limit + 1,
  });
  const page = rows.slice(0, command.limit);
  const last = page.at(-1);
  const hasMore = rows.length > command.limit;
  return { unresolved_payments: page.map(unresolvedView), has_more: hasMore, next_cursor: hasMore && last ? cursorOf(last) : null };
}

/** A merchant's settle or refund of its unresolved payment, once; the record as it stands after. */
export async function resolveUnresolved(
  deps: UnresolvedApiDeps,
  identity: Identity,
  command: ResolveUnresolvedCommand,
): Promise<UnresolvedPaymentView> {
  const who = requireMerchant(identity);
  const resolved = await resolveUnresolvedPayment(
    deps,
    { kind: 'merchant', who },
    command.action === 'settle'
      ? { id: command.id, action: 'settle', destination: null }
      : { id: command.id, action: 'refund', destination: command.destination },
  );
  // A refund its provider refused at once has returned the record to unresolved: the merchant sees it as it stands.
  return unresolvedView((await deps.unresolvedPayments.findById(resolved.late.id)) ?? resolved.late);
}
