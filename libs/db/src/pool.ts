import { createHash } from 'node:crypto';
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
  /**
   * Run {@link Db.query} statements as named prepared statements, so Postgres parses and plans each text
   * once per connection rather than on every call (about half of a short query's database CPU). Only for
   * services whose statement texts are fixed templates: each distinct text stays prepared on every connection.
   */
  prepare?: boolean;
  /**
   * How long a query waits for a free connection before it is answered `unavailable` (2 s): a burst that queues on one
   * lock, each request holding a connection, needs the whole queue's time.
   */
  connectionWaitMs?: number;
}

/**
 * A pg pool bound to one service schema. Connection failures surface as `unavailable` domain errors
 * (a 503 at the edge), never as crashes; the pool reconnects on its own once Postgres is back.
 */
export class Db {
  readonly pool: Pool;
  private readonly statementNames: Map<string, string> | undefined;

  constructor(options: DbOptions) {
    this.pool = new Pool({
      connectionString: options.url,
      max: options.max ?? 10,
      connectionTimeoutMillis: options.connectionWaitMs ?? 2000,
      idleTimeoutMillis: 30_000,
      query_timeout: 5000,
      options: `-c search_path=${options.schema} -c statement_timeout=5000 -c TimeZone=UTC`,
    });
    this.pool.on('error', (err) => options.log.warn({ err }, 'idle postgres client failed'));
    this.statementNames = options.prepare ? new Map() : undefined;
  }

  /** A statement's name: the same for the same text, so each connection prepares it once. */
  private nameOf(sql: string, names: Map<string, string>): string {
    let name = names.get(sql);
    if (name === undefined) {
      name = `pl_${createHash('sha256').update(sql).digest('base64url').slice(0, 24)}`;
      names.set(sql, name);
    }
    return name;
  }

  async query<R extends QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    try {
      if (this.statementNames) return (await this.pool.query<R>({ name: this.nameOf(sql, this.statementNames), text: sql, values: params })).rows;
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
