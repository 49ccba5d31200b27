import type { Logger } from 'pino';
import { Wakeable } from '../background/wakeable';

/** The sweeper's statement (LinkRepository.expireDueBatch in production). */
export interface DueLinkExpirer {
  expireDueBatch(limit: number): Promise<string[]>;
}

export interface ExpirySweeperOptions {
  links: DueLinkExpirer;
  intervalMs: number;
  batchSize: number;
  log: Logger;
}

/**
 * Moves due pending links to `expired` every interval, a batch per statement until none is left.
 * Several replicas sweep safely side by side (the statement skips rows another one holds). Reads do not
 * depend on it: a due link is expired on read anyway; the sweeper makes lists and filters right for
 * links nobody reads.
 */
export class ExpirySweeper {
  private readonly wakeable = new Wakeable();
  private loop: Promise<void> | null = null;

  constructor(private readonly options: ExpirySweeperOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Finishes the statement in flight, then stops. */
  async stop(): Promise<void> {
    this.wakeable.stop();
    await this.loop;
  }

  /** Expires every due link now; returns how many moved. */
  async sweep(): Promise<number> {
    const { links, batchSize } = this.options;
    let total = 0;
    for (;;) {
      const moved = (await links.expireDueBatch(batchSize)).length;
      total += moved;
      if (moved < batchSize || this.wakeable.isStopped) return total;
    }
  }

  private async run(): Promise<void> {
    const { intervalMs, log } = this.options;
    let failing = false;
    while (!this.wakeable.isStopped) {
      try {
        const expired = await this.sweep();
        if (expired > 0) log.info({ expired }, 'expired due payment links');
        if (failing) log.info('expiry sweeper working again');
        failing = false;
      } catch (err) {
        if (!failing) log.warn({ err }, 'expiry sweep failed; retrying every interval');
        failing = true;
      }
      await this.wakeable.sleep(intervalMs);
    }
  }
}
