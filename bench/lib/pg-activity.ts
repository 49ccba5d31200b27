import { Client } from 'pg';

/**
 * Samples what the bench database's connections are doing (pg_stat_activity, every 250 ms) during a
 * run: the share of samples per state, wait event and statement tells where requests wait in Postgres
 * ("idle in transaction" = the service holds a transaction open between its statements; Lock/object at
 * COMMIT = commits queued behind NOTIFY's lock; WALSync = the log flush).
 */
/** The most frequent activities of one or more samplings, as "share% state/wait: statement". */
export function topActivities(samplings: Record<string, number>[], top = 6): string[] {
  const merged = new Map<string, number>();
  for (const counts of samplings) for (const [k, n] of Object.entries(counts)) merged.set(k, (merged.get(k) ?? 0) + n);
  const total = [...merged.values()].reduce((a, b) => a + b, 0);
  return [...merged.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, n]) => `${((n / Math.max(1, total)) * 100).toFixed(0)}% ${k}`);
}

export class PgActivity {
  private readonly counts = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private client: Client | undefined;
  private busy = false;

  constructor(
    private readonly url: string,
    private readonly database: string,
  ) {}

  /** Never fails: without a connection (Postgres crowded) the run goes on unsampled. */
  async start(): Promise<void> {
    const client = new Client({ connectionString: this.url });
    // Dropping the database at the end (or Ctrl-C) ends this connection: no crash for that.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch {
      return;
    }
    this.client = client;
    this.timer = setInterval(() => void this.sample(), 250);
  }

  /** Samples seen per "state/wait: statement" (connections that were not idle). */
  async stop(): Promise<Record<string, number>> {
    clearInterval(this.timer);
    while (this.busy) await new Promise((r) => setTimeout(r, 10));
    if (!this.client) return { '(not sampled: no connection to Postgres)': 1 };
    await this.client.end().catch(() => undefined);
    return Object.fromEntries(this.counts);
  }

  private async sample(): Promise<void> {
    if (this.busy || !this.client) return;
    this.busy = true;
    try {
      const { rows } = await this.client.query<{ what: string }>(
        `SELECT state || coalesce('/' || wait_event, '') || ': ' || left(regexp_replace(query, '\\s+', ' ', 'g'), 60) AS what
           FROM pg_stat_activity
          WHERE datname = $1 AND state <> 'idle' AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        [this.database],
      );
      for (const r of rows) this.counts.set(r.what, (this.counts.get(r.what) ?? 0) + 1);
    } catch {
      // a missed sample is no loss
    } finally {
      this.busy = false;
    }
  }
}
