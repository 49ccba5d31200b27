import type { Logger } from 'pino';
import { syncHeleketPayout, type HeleketPayoutDeps } from '../../domain/heleket-payout';
import { syncAttempt, syncRefund, type SyncDeps } from '../../domain/status-sync';
import type { SyncSchedule } from '../../domain/status-sync-store';
import { PeriodicJob } from './periodic-job';

export interface StatusSyncWorkerOptions {
  deps: SyncDeps;
  /** The Heleket payout rail, when Heleket's payout credentials are configured: its processing payouts are read too. */
  payouts: HeleketPayoutDeps | null;
  schedule: SyncSchedule;
  /** Rows claimed per statement. */
  batchSize: number;
  log: Logger;
}

/** The worker looks for due rows at least this often, so a closed link's attempt is canceled at its provider within it. */
const MAX_POLL_MS = 5000;

/**
 * Status sync (docs/providers.md, "Status sync"): every replica runs it. Each pass claims due attempts, refunds and
 * processing Heleket payouts a
 * batch per statement (the claim moves each one's next read an interval on, under `FOR UPDATE SKIP LOCKED`, so no two
 * replicas read one row and no lock outlives the statement), then reads each from its provider with no transaction
 * open, and applies what it learns through the path its callback takes. A provider that cannot be read leaves its
 * rows due at their next interval; a replica that dies mid-read leaves them due then too.
 */
export class StatusSyncWorker {
  private readonly job: PeriodicJob;

  constructor(private readonly options: StatusSyncWorkerOptions) {
    const { firstDelayMs, intervalMs } = options.schedule;
    this.job = new PeriodicJob({
      intervalMs: Math.min(firstDelayMs, intervalMs, MAX_POLL_MS),
      log: options.log,
      run: async () => {
        const done = await this.runOnce();
        return done.attempts + done.refunds + done.payouts > 0 ? done : null;
      },
      messages: {
        done: 'status sync read unfinished payments, refunds and payouts from their providers',
        failing: 'status sync failed; retrying every interval',
        recovered: 'status sync working again',
      },
    });
  }

  start(): void {
    this.job.start();
  }

  /** Finishes the pass in flight, then stops. */
  stop(): Promise<void> {
    return this.job.stop();
  }

  /** One pass over everything due now; returns how many attempts, refunds and payouts were read, and how many reads failed. */
  async runOnce(): Promise<{ attempts: number; refunds: number; payouts: number; failed: number }> {
    const { deps, schedule, batchSize, log } = this.options;
    const tally = { attempts: 0, refunds: 0, payouts: 0, failed: 0 };
    for (;;) {
      const attempts = await deps.sync.claimDueAttempts(schedule, batchSize);
      for (const attempt of attempts) {
        const read = await syncAttempt(deps, attempt);
        tally.attempts += 1;
        if (read.error !== null) {
          tally.failed += 1;
          log.warn(
            { provider: read.provider, order_id: read.order_id, why: read.error },
            'status sync could not read an attempt; it is read again next interval',
          );
        }
      }
      if (attempts.length < batchSize || this.job.isStopped) break;
    }
    for (;;) {
      const refunds = await deps.sync.claimDueRefunds(schedule, batchSize);
      for (const refund of refunds) {
        const read = await syncRefund(deps, refund);
        tally.refunds += 1;
        if (read.error !== null) {
          tally.failed += 1;
          log.warn(
            { provider: read.provider, refund_id: read.id, why: read.error },
            'status sync could not read a refund; it is read again next interval',
          );
        }
      }
      if (refunds.length < batchSize || this.job.isStopped) break;
    }
    const rail = this.options.payouts;
    while (rail !== null) {
      const payouts = await rail.rail.claimDue(schedule, batchSize);
      for (const payout of payouts) {
        const read = await syncHeleketPayout(rail, payout);
        tally.payouts += 1;
        if (read.error !== null) {
          tally.failed += 1;
          log.warn(
            { provider: 'heleket', payout_id: read.id, why: read.error },
            'status sync could not read a payout; it is read again next interval',
          );
        }
      }
      if (payouts.length < batchSize || this.job.isStopped) break;
    }
    return tally;
  }
}
