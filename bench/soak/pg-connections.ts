import { Client } from 'pg';

export interface ConnectionFigures {
  maxConnections: number;
  /** Connections to the soak's database (its services and itself), peak and last. */
  peakOurs: number;
  /** All connections to the server at the moment of our peak: others' tests share it. */
  totalAtPeak: number;
}

/**
 * Samples how many Postgres connections the soak's services hold: eight processes with pools of up to ten
 * each can take most of a shared server's `max_connections`, which the report should show.
 */
export class PgConnections {
  private figures: ConnectionFigures = { maxConnections: NaN, peakOurs: 0, totalAtPeak: 0 };
  private busy = false;

  private constructor(
    private readonly client: Client,
    private readonly database: string,
  ) {}

  static async open(adminUrl: string, database: string): Promise<PgConnections> {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    const p = new PgConnections(client, database);
    p.figures.maxConnections = Number((await client.query<{ max_connections: string }>('SHOW max_connections')).rows[0]?.max_connections);
    return p;
  }

  /** Connections in use on the whole server now. */
  async inUse(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE backend_type = $1', ['client backend']);
    return Number(rows[0]?.n ?? 0);
  }

  /** One sample; skipped while the previous one is still running (the server may be slow under load). */
  sample(): void {
    if (this.busy) return;
    this.busy = true;
    this.client
      .query<{ ours: string; total: string }>(
        'SELECT count(*) FILTER (WHERE datname = $1) AS ours, count(*) AS total FROM pg_stat_activity WHERE backend_type = $2',
        [this.database, 'client backend'],
      )
      .then(
        ({ rows }) => {
          const ours = Number(rows[0]?.ours ?? 0);
          if (ours > this.figures.peakOurs) this.figures = { ...this.figures, peakOurs: ours, totalAtPeak: Number(rows[0]?.total ?? 0) };
        },
        () => undefined,
      )
      .finally(() => (this.busy = false));
  }

  result(): ConnectionFigures {
    return this.figures;
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
