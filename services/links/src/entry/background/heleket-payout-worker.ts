import type { Logger } from 'pino';
import { handOverToHeleket, type HeleketPayoutDeps } from '../../domain/heleket-payout';
import { PeriodicJob } from './periodic-job';

export interface HeleketPayoutWorkerOptions {
  deps: HeleketPayoutDeps;
  /** `PAYOUT_WORKER_INTERVAL_MS`: how often approved crypto payouts are looked for. */
  intervalMs: number;
  /** Payouts read per statement. */
  batchSize: number;
  log: Logger;
}

/**
 * Hands approved live crypto payouts to Heleket (docs/payouts.md, "How a payout is paid"; ADR 0044). Every replica
 * runs it: each payout is moved to `processing` in its own short transaction under its row lock, and only the replica
 * whose move committed sends its create, after the commit, with no transaction open. What the create leaves unknown
 * is status sync's (StatusSyncWorker) to resolve, by reading Heleket before anything is sent again.
 */
export class HeleketPayoutWorker {
  private readonly job: PeriodicJob;

  constructor(private readonly options: HeleketPayoutWorkerOptions) {
    this.job = new PeriodicJob({
      intervalMs: options.intervalMs,
      log: options.log,
      run: async () => {
        const done = await this.runOnce();
        return done.handed > 0 ? done : null;
      },
      messages: {
        done: 'crypto payouts handed to Heleket',
        failing: 'the crypto payout worker failed; retrying every interval',
        recovered: 'the crypto payout worker is working again',
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

  /** One pass: every approved crypto payout handed over; how many were, and how many got no answer (sync resolves those). */
  async runOnce(): Promise<{ handed: number; unknown: number }> {
    const { deps, batchSize, log } = this.options;
    const tally = { handed: 0, unknown: 0 };
    for (;;) {
      const approved = await deps.rail.approved(batchSize);
      for (const payout of approved) {
        if (this.job.isStopped) return tally;
        const outcome = await handOverToHeleket(deps, payout);
        if (outcome === null) continue;
        tally.handed += 1;
        if (outcome === 'unknown') {
          tally.unknown += 1;
          log.warn({ payout_id: payout.id }, 'Heleket did not answer a payout create; status sync reads it before anything is sent again');
        }
      }
      if (approved.length < batchSize || this.job.isStopped) return tally;
    }
  }
}
