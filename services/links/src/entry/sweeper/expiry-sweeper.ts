import type { Logger } from 'pino';
import { LINKS_OWN_MODE, type LinksOwnMode } from '../../domain/ports';
import { PeriodicJob } from '../background/periodic-job';

/** The sweeper's statements (LinkRepository in production): due links of both modes, each in its own. */
export interface DueLinkExpirer {
  /**
   * Expires up to `limit` due pending links in one short transaction of its own, with each one's
   * `payment_link.expired` event; returns their ids.
   */
  expireDueBatch(limit: number, reach: LinksOwnMode): Promise<string[]>;
  /** Due pending links not yet expired. */
  countDue(reach: LinksOwnMode): Promise<number>;
}

export interface ExpirySweeperOptions {
  links: DueLinkExpirer;
  intervalMs: number;
  batchSize: number;
  /** A backlog of more than SPREAD_FROM_BATCHES batches is spread over this long (default SPREAD_MS). */
  spreadMs?: number;
  log: Logger;
}

/**
 * 8 s: a burst of 100,000 due links (measured on 2 cores under a full create load, each batch of 1,000 takes
 * 30-60 ms) is gone within the 10 s the operations target allows, while the sweep takes well under the
 * whole machine, so creates keep their latency (docs/design-decisions.md, "Expiry sweep").
 */
const SPREAD_MS = 8000;
/** Backlogs up to this many batches go at full speed: they are over in moments anyway. */
const SPREAD_FROM_BATCHES = 10;

/**
 * Moves due pending links to `expired` every interval, a batch per statement until none is left. Each batch
 * is its own short statement that skips rows another transaction holds, so a create, a cancel or a payment
 * never waits for the sweep, and several replicas sweep safely side by side. A large backlog is spread over
 * `spreadMs`: the sweeper pauses whenever it is ahead of that pace, and never when it is behind. Reads do not
 * depend on it: a due link is expired on read anyway; the sweeper makes lists and filters right for links
 * nobody reads.
 */
export class ExpirySweeper {
  private readonly job: PeriodicJob;

  constructor(private readonly options: ExpirySweeperOptions) {
    this.job = new PeriodicJob({
      intervalMs: options.intervalMs,
      log: options.log,
      run: async () => {
        const expired = await this.sweep();
        return expired > 0 ? { expired } : null;
      },
      messages: {
        done: 'expired due payment links',
        failing: 'expiry sweep failed; retrying every interval',
        recovered: 'expiry sweeper working again',
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

  /** Expires every due link now; returns how many moved. */
  async sweep(): Promise<number> {
    const { links, batchSize } = this.options;
    const spreadMs = this.options.spreadMs ?? SPREAD_MS;
    const started = Date.now();
    let total = 0;
    /** The backlog as of the first batch; null until a full first batch showed there is one. */
    let backlog: number | null = null;
    for (;;) {
      const moved = (await links.expireDueBatch(batchSize, LINKS_OWN_MODE)).length;
      total += moved;
      if (moved < batchSize || this.job.isStopped) return total;
      backlog ??= total + (await links.countDue(LINKS_OWN_MODE));
      if (backlog <= SPREAD_FROM_BATCHES * batchSize) continue;
      const onPaceAt = started + (total / backlog) * spreadMs;
      // Stop() ends the pause; new work does not (it is swept at this pace too).
      if (onPaceAt > Date.now()) await this.job.wakeable.sleep(onPaceAt - Date.now(), false);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have come during the pause; narrowing cannot see it
      if (this.job.isStopped) return total;
    }
  }
}
