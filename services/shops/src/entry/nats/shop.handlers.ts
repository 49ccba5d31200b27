import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { findShopByCashierKey, getShopFor } from '../../domain/read-shop';
import { toShopView, type ShopStore } from '../../domain/shop';

/** The shops service's NATS subjects: thin adapters from messages to use cases. */
export function registerShopHandlers(server: BusServer, shops: ShopStore): void {
  server.handle(subjects.shopsGet, async (req, ctx) => toShopView(await getShopFor(shops, ctx.identity, req.shop_id)));
  server.handle(subjects.shopsByCashierKey, async (req, ctx) => toShopView(await findShopByCashierKey(shops, ctx.identity, req.cashier_key)));
}
