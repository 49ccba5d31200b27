import type { Logger } from 'pino';
import { PeriodicJob } from './periodic-job';

/** The purge's statement (IdempotencyRepository in production). */
interface ExpiredKeyPurger {
  /** Deletes up to `limit` records past their retention; returns how many went. */
  purgeExpired(limit: number): Promise<number>;
}

export interface IdempotencyPurgeOptions {
  keys: ExpiredKeyPurger;
  /** Between runs; a record lives its 24 hours plus at most this long. */
  intervalMs: number;
  batchSize: number;
  log: Logger;
}

/**
 * Deletes Idempotency-Key records once they are past their 24 hours, a short batch per statement, so the table
 * holds about a day of keyed requests. Every replica runs it; two deleting the same rows is harmless.
 */
export class IdempotencyPurge {
  private readonly job: PeriodicJob;

  constructor(private readonly options: IdempotencyPurgeOptions) {
    this.job = new PeriodicJob({
      intervalMs: options.intervalMs,
      log: options.log,
      run: async () => {
        const purged = await this.purge();
        return purged > 0 ? { purged } : null;
      },
      messages: {
        done: 'purged expired idempotency keys',
        failing: 'idempotency key purge failed; retrying every interval',
        recovered: 'idempotency key purge working again',
      },
    });
  }

  start(): void {
    this.job.start();
  }

  /** Finishes the statement in flight, then stops. */
  stop(): Promise<void> {
    return this.job.stop();
  }

  /** Deletes every record past its retention now; returns how many went. */
  async purge(): Promise<number> {
    const { keys, batchSize } = this.options;
    let total = 0;
    for (;;) {
      const deleted = await keys.purgeExpired(batchSize);
      total += deleted;
      if (deleted < batchSize || this.job.isStopped) return total;
    }
  }
}
