import { Pool, type PoolClient, type QueryResultRow } from 'pg';
import type { Logger } from 'pino';
import { unavailable } from '@pl/errors';

/** SQLSTATE classes and socket errors that mean "the database is not reachable right now". */
const CONNECTION_SQLSTATE = /^(08|53|57P0[1-3])/;
const CONNECTION_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

export function isConnectionError(e: unknown): boolean {
  // Duck-typed, not `instanceof Error`: socket errors may come from another realm (Jest's sandbox does this).
  if (typeof e !== 'object' || e === null) return false;
  const { code, message } = e as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (CONNECTION_SQLSTATE.test(code) || CONNECTION_ERRNO.has(code))) return true;
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i.test(
      message,
    )
  );
}

const asUnavailable = (e: unknown): unknown => (isConnectionError(e) ? unavailable('Database is unavailable') : e);

export interface DbOptions {
  url: string;
  /** The service's own schema; tables are found through search_path. */
  schema: string;
  max?: number;
  log: Logger;
}

/**
 * A pg pool bound to one service schema. Connection failures surface as `unavailable` domain errors
 * (a 503 at the edge), never as crashes; the pool reconnects on its own once Postgres is back.
 */
export class Db {
  readonly pool: Pool;

  constructor(options: DbOptions) {
    this.pool = new Pool({
      connectionString: options.url,
      max: options.max ?? 10,
      connectionTimeoutMillis: 2000,
      idleTimeoutMillis: 30_000,
      query_timeout: 5000,
      options: `-c search_path=${options.schema} -c statement_timeout=5000 -c TimeZone=UTC`,
    });
    this.pool.on('error', (err) => options.log.warn({ err }, 'idle postgres client failed'));
  }

  async query<R extends QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    try {
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (e) {
      throw asUnavailable(e);
    }
  }

  /** Runs fn in one transaction; rolls back on any error. */
  async transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw asUnavailable(e);
    }
    let broken = false;
    // A checked-out client has no pool listener: if its connection drops between two queries, pg emits
    // 'error' on it, and an unheard 'error' would crash the process. The next query fails and says so.
    const onError = (): void => {
      broken = true;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      broken ||= isConnectionError(e);
      if (!broken) await client.query('ROLLBACK').catch(() => undefined);
      throw asUnavailable(e);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  async ping(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
