import type { Logger } from 'pino';
import { Wakeable } from './wakeable';

/** The purge's statement (IdempotencyRepository in production). */
export interface ExpiredKeyPurger {
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
  private readonly wakeable = new Wakeable();
  private loop: Promise<void> | null = null;

  constructor(private readonly options: IdempotencyPurgeOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Finishes the statement in flight, then stops. */
  async stop(): Promise<void> {
    this.wakeable.stop();
    await this.loop;
  }

  /** Deletes every record past its retention now; returns how many went. */
  async purge(): Promise<number> {
    const { keys, batchSize } = this.options;
    let total = 0;
    for (;;) {
      const deleted = await keys.purgeExpired(batchSize);
      total += deleted;
      if (deleted < batchSize || this.wakeable.isStopped) return total;
    }
  }

  private async run(): Promise<void> {
    const { intervalMs, log } = this.options;
    while (!this.wakeable.isStopped) {
      try {
        const purged = await this.purge();
        if (purged > 0) log.debug({ purged }, 'purged expired idempotency keys');
      } catch (err) {
        log.warn({ err }, 'idempotency key purge failed; retrying next interval');
      }
      await this.wakeable.sleep(intervalMs);
    }
  }
}
