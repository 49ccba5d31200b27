import type { Logger } from 'pino';
import type { PartitionUpkeepResult } from '@pl/db';

/** The partitions' DDL (DayPartitions in production). */
interface PartitionKeeper {
  upkeep(): Promise<PartitionUpkeepResult>;
}

/** Days ahead of today that have their partition (an upkeep failing for that long would leave writes nowhere to go). */
export const PARTITION_DAYS_AHEAD = 7;

/** Between runs: an hour, with partitions a week ahead, leaves days of failed runs before a write has nowhere to go. */
const INTERVAL_MS = 3_600_000;

/**
 * Keeps the notifier's time-partitioned tables (events by day, deliveries and their attempts by month) partitioned
 * ahead and drops partitions past their retention. Every replica runs it from its start on; DayPartitions leaves a
 * table another replica is keeping. A failure is logged once per series and retried next interval.
 */
export class PartitionUpkeep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly partitions: PartitionKeeper,
    private readonly log: Logger,
    private readonly intervalMs = INTERVAL_MS,
  ) {}

  start(): void {
    this.schedule(0);
  }

  /** Finishes the run in flight, then stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce().finally(() => this.schedule(this.intervalMs));
    }, delayMs);
    this.timer.unref();
  }

  private async runOnce(): Promise<void> {
    try {
      const { created, dropped } = await this.partitions.upkeep();
      if (created.length > 0 || dropped.length > 0) this.log.info({ created, dropped }, 'partitions kept');
      if (this.failing) this.log.info('partition upkeep working again');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.log.warn({ err }, 'partition upkeep failed; retrying every interval');
      this.failing = true;
    }
  }
}
