import { formatMoscow, type Identity, type NextPayout, type NextPayoutCommand } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import { requireMerchant } from './access';
import type { LedgerStore } from './ledger';
import { nextPayoutAt } from './payout-schedule-period';
import type { ShopDirectory } from './ports';
import { scheduledAmount } from './run-payout-schedule';

export interface NextPayoutDeps {
  ledger: LedgerStore;
  shops: ShopDirectory;
  settings: { feeKopecks: number; maxKopecks: number };
  now: () => Date;
}

/**
 * The shop's next scheduled payout in the caller's mode as the scheduler would make it now: when (the next period's
 * 10:00 Moscow) and how much (null below the minimum). The shop is checked as the balance's read checks it (404, 403).
 */
export async function nextScheduledPayout(deps: NextPayoutDeps, identity: Identity, command: NextPayoutCommand): Promise<NextPayout> {
  const who = requireMerchant(identity);
  await deps.shops.getShop(command.shop_id, who);
  const balance = await deps.ledger.balance(command.shop_id, who.mode);
  const amount = scheduledAmount(balance.available, command.minimum_kopecks, deps.settings);
  return {
    interval: command.interval,
    scheduled_at: formatMoscow(nextPayoutAt(command.interval, deps.now())),
    amount: amount === null ? null : formatKopecks(amount),
    minimum: formatKopecks(command.minimum_kopecks),
  };
}
