import type { Logger } from 'pino';
import type { PartitionUpkeepResult } from '@pl/db';
import { PeriodicJob } from './periodic-job';

/** The partitions' DDL (DayPartitions in production). */
interface PartitionKeeper {
  upkeep(): Promise<PartitionUpkeepResult>;
}

/** Days ahead of today that have their partition. */
export const PARTITION_DAYS_AHEAD = 7;

/** Between runs: an hour, with partitions a week ahead, leaves days of failed runs before a write has nowhere to go. */
const INTERVAL_MS = 3_600_000;

/**
 * Keeps this service's day-partitioned tables (the outbox record, the Idempotency-Key records) partitioned ahead and drops days past their
 * retention. Every replica runs it, from its start on; DayPartitions leaves a table another replica is keeping.
 */
export function partitionUpkeep(partitions: PartitionKeeper, log: Logger, intervalMs = INTERVAL_MS): PeriodicJob {
  return new PeriodicJob({
    intervalMs,
    log,
    run: async () => {
      const { created, dropped } = await partitions.upkeep();
      if (created.length === 0 && dropped.length === 0) return null;
      log.info({ created, dropped }, 'day partitions kept');
      return null;
    },
    messages: {
      done: 'day partitions kept',
      failing: 'partition upkeep failed; retrying every interval',
      recovered: 'partition upkeep working again',
    },
  });
}
