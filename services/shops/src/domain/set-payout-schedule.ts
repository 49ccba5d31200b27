import { PAYOUT_SCHEDULE_MINIMUM_KOPECKS, type Identity, type ScheduledPayoutShop, type SetPayoutScheduleCommand } from '@pl/contracts';
import { forbidden, invalidField } from '@pl/errors';
import { formatKopecks } from '@pl/money';
import { getManagedShop } from './shop-access';
import type { Shop, ShopStore, StoredPayoutSchedule } from './shop';

export interface PayoutScheduleDeps {
  shops: ShopStore;
  /** PAYOUT_MAX in kopecks: a minimum above it could never be paid in one payout. */
  payoutMaxKopecks: number;
}

/** The schedule a command asks for, or null for `manual`; a missing or out-of-bounds field is 400 naming it. */
function scheduleOf(command: SetPayoutScheduleCommand, maxKopecks: number): StoredPayoutSchedule | null {
  if (command.interval === 'manual') return null;
  if (command.destination_id === null) throw invalidField('destination_id', `is required for a ${command.interval} schedule`);
  const minimum = command.minimum_kopecks;
  if (minimum === null) throw invalidField('minimum', `is required for a ${command.interval} schedule`);
  if (minimum < PAYOUT_SCHEDULE_MINIMUM_KOPECKS || minimum > maxKopecks) {
    throw invalidField('minimum', `must be from ${formatKopecks(PAYOUT_SCHEDULE_MINIMUM_KOPECKS)} to ${formatKopecks(maxKopecks)}`);
  }
  return { interval: command.interval, destinationId: command.destination_id.toLowerCase(), minimumKopecks: minimum };
}

/**
 * A merchant sets its shop's automatic payouts in the identity's mode (docs/payouts.md, "Automatic payouts"). The
 * gateway has judged the session's role and step-up and that the destination is the account's, of that mode.
 */
export async function setPayoutSchedule(deps: PayoutScheduleDeps, identity: Identity, command: SetPayoutScheduleCommand): Promise<Shop> {
  const shop = await getManagedShop(deps.shops, identity, command.shop_id);
  if (identity.kind !== 'merchant') throw forbidden('Only merchant credentials may manage shops');
  return deps.shops.setPayoutSchedule(shop.id, identity.mode, scheduleOf(command, deps.payoutMaxKopecks));
}

/** The scheduler's page of every shop's schedules; platform services only. */
export async function listPayoutSchedules(
  shops: ShopStore,
  identity: Identity,
  after: { shopId: number; mode: ScheduledPayoutShop['mode'] } | null,
  limit: number,
): Promise<ScheduledPayoutShop[]> {
  if (identity.kind !== 'service') throw forbidden('Only platform services list payout schedules');
  return shops.listPayoutSchedules(after, limit);
}
