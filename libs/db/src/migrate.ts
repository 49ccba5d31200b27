import { runner } from 'node-pg-migrate';
import type { Logger } from 'pino';

export interface MigrateOptions {
  url: string;
  schema: string;
  /** Folder of versioned `<17-digit UTC timestamp>_name.sql` files with `-- Up Migration` / `-- Down Migration` parts. */
  dir: string;
  log: Logger;
}

/** Applies a service's pending migrations to its own schema; safe to run from several pods at once (advisory lock). */
export async function migrate(options: MigrateOptions): Promise<void> {
  const applied = await runner({
    databaseUrl: options.url,
    schema: options.schema,
    createSchema: true,
    migrationsSchema: options.schema,
    migrationsTable: 'schema_migrations',
    dir: options.dir,
    direction: 'up',
    checkOrder: true,
    verbose: false,
    logger: {
      debug: () => undefined,
      info: (msg: string) => options.log.debug({ schema: options.schema }, msg),
      warn: (msg: string) => options.log.warn({ schema: options.schema }, msg),
      error: (msg: string) => options.log.error({ schema: options.schema }, msg),
    },
  });
  if (applied.length > 0) options.log.info({ schema: options.schema, applied: applied.map((m) => m.name) }, 'migrations applied');
}
