import type { PoolClient } from 'pg';
import type { Db } from './pool';

/**
 * A table partitioned by range of a timestamptz column: a partition per UTC day named `<table>_pYYYYMMDD`, or per
 * UTC month named `<table>_pYYYYMM`. Other partitions (a DEFAULT one) are left alone.
 */
export interface DayPartitionedTable {
  /** The partitioned table, unqualified (found through the service's search_path). */
  table: string;
  /** Whole days a row is kept at least: a partition goes once its last instant is this old. */
  retentionDays: number;
  /** A partition's span: a day unless said (a month keeps a table that is read whole to a few partitions). */
  unit?: 'day' | 'month';
  /**
   * A query that returns a row while a partition must stay past its retention ($1: the partition's end), such as
   * an event still queued for publishing: the partition waits for a later run.
   */
  holdWhile?: string;
}

export interface PartitionUpkeepResult {
  created: string[];
  dropped: string[];
}

const DAY_MS = 86_400_000;
const NAME = /^(.+)_p(\d{4})(\d{2})(\d{2})?$/;

const dayStart = (at: Date): number => Math.floor(at.getTime() / DAY_MS) * DAY_MS;
const stamp = (dayMs: number): string => new Date(dayMs).toISOString().slice(0, 10);

/** A partition's span in UTC: where one starts, where the next does, and its name's suffix. */
interface Span {
  start(at: number): number;
  next(start: number): number;
  suffix(start: number): string;
}

const SPANS: Record<'day' | 'month', Span> = {
  day: { start: (at) => Math.floor(at / DAY_MS) * DAY_MS, next: (start) => start + DAY_MS, suffix: (start) => stamp(start).replaceAll('-', '') },
  month: {
    start: (at) => Date.UTC(new Date(at).getUTCFullYear(), new Date(at).getUTCMonth(), 1),
    next: (start) => Date.UTC(new Date(start).getUTCFullYear(), new Date(start).getUTCMonth() + 1, 1),
    suffix: (start) => stamp(start).slice(0, 7).replace('-', ''),
  },
};

const spanOf = (t: DayPartitionedTable): Span => SPANS[t.unit ?? 'day'];
const partitionName = (t: DayPartitionedTable, start: number): string => `${t.table}_p${spanOf(t).suffix(start)}`;

/** The end of a partition this table's upkeep named, or null for any other (a DEFAULT partition, another span's). */
function endOf(t: DayPartitionedTable, name: string): number | null {
  const m = NAME.exec(name);
  if (m?.[1] !== t.table || (m[4] === undefined) !== (t.unit === 'month')) return null;
  const start = Date.UTC(Number(m[2]), Number(m[3]) - 1, m[4] === undefined ? 1 : Number(m[4]));
  return spanOf(t).next(start);
}
const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Keeps day (or month) partitions ahead of time and drops those past their retention: rows leave a table by whole
 * days (or months), with no row deletes, no dead tuples and no vacuum behind them. Every replica runs it: each step holds a
 * transaction-level advisory lock of the table's name, which a second replica finding taken leaves to the first,
 * so two never race on the same DDL.
 */
export class DayPartitions {
  constructor(
    private readonly db: Db,
    private readonly tables: readonly DayPartitionedTable[],
    /** Days ahead of today that always have their partition (an upkeep that fails for that long stops writes). */
    private readonly daysAhead: number,
  ) {}

  async upkeep(now: Date = new Date()): Promise<PartitionUpkeepResult> {
    const result: PartitionUpkeepResult = { created: [], dropped: [] };
    for (const t of this.tables) {
      result.created.push(...(await this.db.transaction((client) => this.createAhead(client, t, now))));
      result.dropped.push(...(await this.dropExpired(t, now)));
    }
    return result;
  }

  /** The partitions of `table` that exist, by name. */
  private async partitions(client: PoolClient, table: string): Promise<string[]> {
    const { rows } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1)`,
      [table],
    );
    return rows.map((r) => r.name);
  }

  private async createAhead(client: PoolClient, t: DayPartitionedTable, now: Date): Promise<string[]> {
    if (!(await lockTable(client, t.table))) return [];
    const existing = new Set(await this.partitions(client, t.table));
    const span = spanOf(t);
    const last = dayStart(now) + this.daysAhead * DAY_MS;
    const created: string[] = [];
    for (let start = span.start(now.getTime()); start <= last; start = span.next(start)) {
      const name = partitionName(t, start);
      if (existing.has(name)) continue;
      await client.query(
        `CREATE TABLE ${quoteIdent(name)} PARTITION OF ${quoteIdent(t.table)}
           FOR VALUES FROM ('${stamp(start)} 00:00:00+00') TO ('${stamp(span.next(start))} 00:00:00+00')`,
      );
      created.push(name);
    }
    return created;
  }

  /** Each expired partition in a transaction of its own: one that cannot have its lock now does not hold back the rest. */
  private async dropExpired(t: DayPartitionedTable, now: Date): Promise<string[]> {
    // A partition goes when its end is retentionDays old: every row in it is at least that old.
    const keepFrom = dayStart(now) - t.retentionDays * DAY_MS;
    const expired = await this.db.transaction(async (client) =>
      (await this.partitions(client, t.table)).flatMap((name) => {
        const end = endOf(t, name);
        return end !== null && end <= keepFrom ? [{ name, end: new Date(end) }] : [];
      }),
    );
    const dropped: string[] = [];
    for (const { name, end } of expired.sort((a, b) => a.end.getTime() - b.end.getTime())) {
      const gone = await this.db.transaction(async (client) => {
        if (!(await lockTable(client, t.table))) return false;
        if (!(await this.partitions(client, t.table)).includes(name)) return false;
        if (t.holdWhile && (await client.query(t.holdWhile, [end])).rows.length > 0) return false;
        await client.query(`DROP TABLE ${quoteIdent(name)}`);
        return true;
      });
      if (gone) dropped.push(name);
    }
    return dropped;
  }
}

/**
 * Takes the upkeep of one table for this transaction, or says another replica has it (that one does the work).
 * Also bounds the wait for the table's own lock: DDL on a partition queues every writer of the table behind it
 * while it waits, so it gives up quickly and the next run tries again.
 */
async function lockTable(client: PoolClient, table: string): Promise<boolean> {
  await client.query("SET LOCAL lock_timeout = '200ms'");
  const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok', [`day-partitions:${table}`]);
  return rows[0]?.ok === true;
}
