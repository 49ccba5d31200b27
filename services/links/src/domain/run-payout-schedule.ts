import type { Mode, PayoutContext, ScheduledPayoutShop } from '@pl/contracts';
import type { BalanceRecord } from './ledger';
import type { PayoutDeps, SchedulePeriodClaim } from './payout';
import { railOf } from './payout-create';
import { periodOf } from './payout-schedule-period';
import { payoutEvent } from './payout-view';

/** Why a period of a schedule made no payout; the operator sees it in `payout_schedule_runs` and the log. */
type ScheduleSkip = 'below_minimum' | 'on_hold' | 'destination_not_active' | 'daily_limit' | 'insufficient_available';

/** A period's decision without a payout, recorded once (the first decision of the period stays). */
export interface ScheduleSkipRecord {
  schedule: ScheduledPayoutShop;
  claim: SchedulePeriodClaim;
  outcome: ScheduleSkip;
}

/** The smallest payout (docs/payouts.md): a schedule never pays less, whatever its minimum. */
const PAYOUT_MIN_KOPECKS = 10_000;
const SCHEDULE_PAGE = 500;

export interface PayoutScheduleDeps extends Omit<PayoutDeps, 'shops'> {
  /** Every shop's schedules, a keyset page at a time (the shops service). */
  schedules(after: { shop_id: number; mode: Mode } | null, limit: number): Promise<ScheduledPayoutShop[]>;
  /** The account's hold and approval setting and the destination (the gateway). */
  context(schedule: ScheduledPayoutShop): Promise<PayoutContext>;
  balance(shopId: number, mode: Mode): Promise<BalanceRecord>;
  runs: {
    /** Of `keys` (`shop:mode:period`), those whose period is decided already. */
    decided(keys: { shopId: number; livemode: boolean; period: string }[]): Promise<Set<string>>;
    recordSkip(skip: ScheduleSkipRecord): Promise<void>;
  };
  log: (level: 'info' | 'warn', fields: Record<string, unknown>, message: string) => void;
}

export const runKey = (shopId: number, livemode: boolean, period: string): string => `${shopId}:${livemode}:${period}`;

/** `failed`: it could not be decided now (a service did not answer); nothing is recorded, the next pass tries again. */
type Decision = 'created' | 'taken' | 'failed' | ScheduleSkip;

/**
 * What a scheduled payout of `available` pays: all of it less the fee, at most PAYOUT_MAX (the rest waits for the next
 * period); null when that is below the schedule's minimum or the smallest payout.
 */
export function scheduledAmount(
  availableKopecks: number,
  minimumKopecks: number,
  settings: { feeKopecks: number; maxKopecks: number },
): number | null {
  const amount = Math.min(availableKopecks - settings.feeKopecks, settings.maxKopecks);
  return amount < Math.max(minimumKopecks, PAYOUT_MIN_KOPECKS) ? null : amount;
}

/**
 * One schedule's period (docs/adr/0046), by the rules of a member's payout: the account not on hold, the destination
 * the account's and active, `available` less the fee at least the minimum (and 100.00; at most PAYOUT_MAX, the rest
 * waits for the next period), then in the payout's transaction the available balance and the account's 24 hours again.
 */
async function decide(deps: PayoutScheduleDeps, schedule: ScheduledPayoutShop, period: string): Promise<Decision> {
  const livemode = schedule.mode === 'live';
  const { settings } = deps;
  const context = await deps.context(schedule);
  const balance = await deps.balance(schedule.shop_id, schedule.mode);
  const claim: SchedulePeriodClaim = {
    interval: schedule.interval,
    period,
    minimumKopecks: schedule.minimum_kopecks,
    availableKopecks: balance.available,
  };
  const skip = async (outcome: ScheduleSkip): Promise<Decision> => {
    await deps.runs.recordSkip({ schedule, claim, outcome });
    return outcome;
  };
  if (context.on_hold) return skip('on_hold');
  if (!context.destination || !context.destination_active) return skip('destination_not_active');
  const amount = scheduledAmount(balance.available, schedule.minimum_kopecks, settings);
  if (amount === null) return skip('below_minimum');
  const outcome = await deps.payouts.create(
    {
      id: deps.newId(),
      merchantId: schedule.merchant_id,
      shopId: schedule.shop_id,
      livemode,
      amount,
      fee: settings.feeKopecks,
      status: context.requires_approval || amount >= settings.approvalThresholdKopecks ? 'pending_approval' : 'approved',
      description: null,
      destination: context.destination,
      rail: railOf(livemode, context.destination.type),
      createdBy: null,
      key: null,
      schedule: claim,
      holdHours: settings.holdHours,
      dailyMaxKopecks: settings.dailyMaxKopecks,
    },
    (created) => payoutEvent('payout.created', created, deps.newId(), deps.eventsTopic),
  );
  switch (outcome.kind) {
    case 'created':
      return 'created';
    case 'period_taken':
    case 'key_taken':
      return 'taken';
    case 'insufficient_available':
    case 'daily_limit':
      return skip(outcome.kind);
  }
}

/** Skips the operator should look at; a balance below the minimum is the ordinary case. */
const WARN_ON: ReadonlySet<Decision> = new Set(['on_hold', 'destination_not_active', 'daily_limit', 'insufficient_available']);

/**
 * One pass of the scheduler at `now`: every daily and weekly schedule whose current period is not decided yet, and that
 * was set before that period's 10:00, gets its decision. Any replica may run it at any time: the period's row is the
 * one lock, so a second pass (another replica, or a catch-up after downtime) changes nothing already decided.
 */
export async function runPayoutSchedule(deps: PayoutScheduleDeps, now: Date): Promise<Record<Decision, number>> {
  const counts: Record<Decision, number> = {
    created: 0,
    taken: 0,
    failed: 0,
    below_minimum: 0,
    on_hold: 0,
    destination_not_active: 0,
    daily_limit: 0,
    insufficient_available: 0,
  };
  let after: { shop_id: number; mode: Mode } | null = null;
  for (;;) {
    const page = await deps.schedules(after, SCHEDULE_PAGE);
    const due = page
      .map((schedule) => ({ schedule, ...periodOf(schedule.interval, now) }))
      .filter(({ schedule, startsAt }) => Date.parse(schedule.set_at) <= startsAt.getTime());
    const decided = await deps.runs.decided(due.map((d) => ({ shopId: d.schedule.shop_id, livemode: d.schedule.mode === 'live', period: d.period })));
    for (const { schedule, period } of due) {
      if (decided.has(runKey(schedule.shop_id, schedule.mode === 'live', period))) continue;
      const decision = await decide(deps, schedule, period).catch((err: unknown): Decision => {
        deps.log('warn', { err, shop_id: schedule.shop_id, mode: schedule.mode, period }, 'scheduled payout not decided; the next pass tries again');
        return 'failed';
      });
      counts[decision] += 1;
      if (decision !== 'taken' && decision !== 'failed') {
        deps.log(WARN_ON.has(decision) ? 'warn' : 'info', { shop_id: schedule.shop_id, mode: schedule.mode, period, decision }, 'scheduled payout');
      }
    }
    const last = page.at(-1);
    if (page.length < SCHEDULE_PAGE || !last) return counts;
    after = { shop_id: last.shop_id, mode: last.mode };
  }
}
