import type { Logger } from 'pino';
import type { BusClient } from '@pl/bus';
import { subjects } from '@pl/contracts';
import type { Db } from '@pl/db';
import type { LinksConfig } from '../../config';
import { LedgerRepository } from '../../data/ledger.repository';
import { PayoutRepository } from '../../data/payout.repository';
import { PayoutScheduleRunRepository } from '../../data/payout-schedule-run.repository';
import { LINKS_SERVICE_IDENTITY } from '../../domain/access';
import type { OutboxEntry } from '../../domain/link';
import { runPayoutSchedule, type PayoutScheduleDeps } from '../../domain/run-payout-schedule';
import { PeriodicJob } from './periodic-job';

type SchedulerConfig = Pick<
  LinksConfig,
  'PAYMENT_EVENTS_TOPIC' | 'PAYOUT_HOLD_HOURS' | 'PAYOUT_MAX' | 'PAYOUT_DAILY_MAX' | 'PAYOUT_APPROVAL_THRESHOLD' | 'PAYOUT_FEE'
>;

/**
 * What one pass of the payout scheduler needs: schedules from the shops service, the account's side from the gateway
 * (both with the links service's identity), the balance, payouts and period rows from links' own database.
 */
export function payoutSchedulerDeps(
  config: SchedulerConfig,
  db: Db,
  bus: BusClient,
  log: Logger,
  handOver: (entry: OutboxEntry) => void,
  newId: () => string,
): PayoutScheduleDeps {
  const ledger = new LedgerRepository(db, config.PAYOUT_HOLD_HOURS);
  return {
    payouts: new PayoutRepository(db, handOver, config.PAYMENT_EVENTS_TOPIC),
    newId,
    eventsTopic: config.PAYMENT_EVENTS_TOPIC,
    settings: {
      holdHours: config.PAYOUT_HOLD_HOURS,
      maxKopecks: config.PAYOUT_MAX,
      dailyMaxKopecks: config.PAYOUT_DAILY_MAX,
      approvalThresholdKopecks: config.PAYOUT_APPROVAL_THRESHOLD,
      feeKopecks: config.PAYOUT_FEE,
    },
    schedules: async (after, limit) => (await bus.request(subjects.shopsPayoutSchedules, { after, limit }, LINKS_SERVICE_IDENTITY)).schedules,
    context: (s) =>
      bus.request(
        subjects.gatewayPayoutContext,
        { merchant_id: s.merchant_id, mode: s.mode, destination_id: s.destination_id },
        LINKS_SERVICE_IDENTITY,
      ),
    balance: (shopId, mode) => ledger.balance(shopId, mode),
    runs: new PayoutScheduleRunRepository(db),
    log: (level, fields, message) => log[level](fields, message),
  };
}

/**
 * Every replica runs the scheduler each interval (PAYOUT_SCHEDULE_INTERVAL_MS): a pass decides only periods nobody has
 * decided, so replicas share the work without a leader, and one that was down at 10:00 catches up when it is back.
 */
export function payoutScheduler(deps: PayoutScheduleDeps, intervalMs: number, log: Logger, now: () => Date = () => new Date()): PeriodicJob {
  return new PeriodicJob({
    intervalMs,
    log,
    run: async () => {
      const counts = await runPayoutSchedule(deps, now());
      return Object.values(counts).some((n) => n > 0) ? counts : null;
    },
    messages: {
      done: 'payout schedule pass',
      failing: 'payout schedule pass failing; retrying',
      recovered: 'payout schedule pass works again',
    },
  });
}
