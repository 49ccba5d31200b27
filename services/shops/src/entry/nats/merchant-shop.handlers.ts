import type { BusServer } from '@pl/bus';
import { subjects, type Identity, type Mode } from '@pl/contracts';
import { createMerchantShop, type MerchantShopDeps } from '../../domain/create-merchant-shop';
import { listShops } from '../../domain/list-shops';
import { toMerchantShop, toMerchantShopPage } from '../../domain/merchant-shop-view';
import { reissueCashierKey } from '../../domain/reissue-cashier-key';
import { rotateWebhookSecret } from '../../domain/rotate-webhook-secret';
import { getManagedShop } from '../../domain/shop-access';
import { updateMerchantShop } from '../../domain/update-merchant-shop';
import { listPayoutSchedules, setPayoutSchedule } from '../../domain/set-payout-schedule';

/** The mode a merchant reads its shop in (its payout schedule is of that mode); the use cases refuse any other caller. */
const modeOf = (identity: Identity): Mode => (identity.kind === 'merchant' ? identity.mode : 'live');

/**
 * The merchant's self-service on its shops (the dashboard session API and API keys): thin adapters to use cases.
 *
 * A change is announced (`announce`, on `shops.changed`) after it commits and before the reply leaves, on the same
 * connection, so a service holding a copy of the shop hears of the change before the merchant hears it is done:
 * an event or a link that follows the reply never meets the old copy. The trigger's notice (ShopChangesListener)
 * comes later on its own schedule; it stays, for changes made outside these handlers.
 */
export function registerMerchantShopHandlers(
  server: BusServer,
  deps: MerchantShopDeps & { payoutMaxKopecks: number },
  announce: (shopId: number) => void,
): void {
  const announced = async <T>(shopId: number, change: Promise<T>): Promise<T> => {
    const result = await change;
    announce(shopId);
    return result;
  };
  server.handle(subjects.shopsList, async (req, ctx) => toMerchantShopPage(await listShops(deps.shops, ctx.identity, req), modeOf(ctx.identity)));
  server.handle(subjects.shopsRead, async (req, ctx) =>
    toMerchantShop(await getManagedShop(deps.shops, ctx.identity, req.shop_id), modeOf(ctx.identity)),
  );
  server.handle(subjects.shopsCreate, async (req, ctx) => toMerchantShop(await createMerchantShop(deps, ctx.identity, req), modeOf(ctx.identity)));
  server.handle(subjects.shopsUpdate, async (req, ctx) =>
    toMerchantShop(await announced(req.shop_id, updateMerchantShop(deps, ctx.identity, req)), modeOf(ctx.identity)),
  );
  server.handle(subjects.shopsSetPayoutSchedule, async (req, ctx) =>
    toMerchantShop(await announced(req.shop_id, setPayoutSchedule(deps, ctx.identity, req)), modeOf(ctx.identity)),
  );
  server.handle(subjects.shopsPayoutSchedules, async (req, ctx) => ({
    schedules: await listPayoutSchedules(deps.shops, ctx.identity, req.after && { shopId: req.after.shop_id, mode: req.after.mode }, req.limit),
  }));
  server.handle(subjects.shopsRotateSecret, (req, ctx) => announced(req.shop_id, rotateWebhookSecret(deps.shops, ctx.identity, req)));
  server.handle(subjects.shopsReissueCashierKey, (req, ctx) => announced(req.shop_id, reissueCashierKey(deps.shops, ctx.identity, req)));
}
