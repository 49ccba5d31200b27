import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { createMerchantShop, type MerchantShopDeps } from '../../domain/create-merchant-shop';
import { listShops } from '../../domain/list-shops';
import { toMerchantShop, toMerchantShopPage } from '../../domain/merchant-shop-view';
import { reissueCashierKey } from '../../domain/reissue-cashier-key';
import { rotateWebhookSecret } from '../../domain/rotate-webhook-secret';
import { getManagedShop } from '../../domain/shop-access';
import { updateMerchantShop } from '../../domain/update-merchant-shop';

/** The merchant's self-service on its shops (the dashboard session API and API keys): thin adapters to use cases. */
export function registerMerchantShopHandlers(server: BusServer, deps: MerchantShopDeps): void {
  server.handle(subjects.shopsList, async (req, ctx) => toMerchantShopPage(await listShops(deps.shops, ctx.identity, req)));
  server.handle(subjects.shopsRead, async (req, ctx) => toMerchantShop(await getManagedShop(deps.shops, ctx.identity, req.shop_id)));
  server.handle(subjects.shopsCreate, async (req, ctx) => toMerchantShop(await createMerchantShop(deps, ctx.identity, req)));
  server.handle(subjects.shopsUpdate, async (req, ctx) => toMerchantShop(await updateMerchantShop(deps, ctx.identity, req)));
  server.handle(subjects.shopsRotateSecret, (req, ctx) => rotateWebhookSecret(deps.shops, ctx.identity, req));
  server.handle(subjects.shopsReissueCashierKey, (req, ctx) => reissueCashierKey(deps.shops, ctx.identity, req));
}
