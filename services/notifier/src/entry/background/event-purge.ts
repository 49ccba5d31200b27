import type { Logger } from 'pino';

/** The purge's statement (EventRepository in production). */
interface ExpiredEventPurger {
  /** Deletes up to `limit` events past `retentionDays` (not those a pending delivery still needs); returns how many. */
  purgeExpired(retentionDays: number, limit: number): Promise<number>;
}

export interface EventPurgeOptions {
  events: ExpiredEventPurger;
  retentionDays: number;
  /** Between runs; an event lives its retention plus at most this long. */
  intervalMs: number;
  batchSize: number;
  log: Logger;
}

/**
 * Deletes recorded events past their retention (EVENT_RETENTION_DAYS) from the DEFAULT partition, where an event
 * whose day has no partition lands (every other event leaves with its day's partition, ADR 22), a short batch per
 * statement so no statement holds many locks or runs long beside the intake. Every replica runs it; they skip each other's rows.
 * A failure is logged once per series and retried next interval.
 */
export class EventPurge {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private failing = false;

  constructor(private readonly options: EventPurgeOptions) {}

  start(): void {
    this.schedule(0);
  }

  /** Finishes the statement in flight, then stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Deletes every event past its retention now (batch after batch); returns how many went. */
  async purge(): Promise<number> {
    const { events, retentionDays, batchSize } = this.options;
    let total = 0;
    for (;;) {
      const deleted = await events.purgeExpired(retentionDays, batchSize);
      total += deleted;
      if (deleted < batchSize || this.stopped) return total;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce().finally(() => this.schedule(this.options.intervalMs));
    }, delayMs);
    this.timer.unref();
  }

  private async runOnce(): Promise<void> {
    const { log } = this.options;
    try {
      const purged = await this.purge();
      if (purged > 0) log.info({ purged }, 'purged expired events');
      if (this.failing) log.info('event purge working again');
      this.failing = false;
    } catch (err) {
      if (!this.failing) log.warn({ err }, 'event purge failed; retrying every interval');
      this.failing = true;
    }
  }
}
