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

/** Applies one service's migrations to a database; what each service exports for `npm run migrate` and its tests. */
export type ApplyMigrations = (url: string, log: Logger) => Promise<void>;

/** The migrations of the service whose schema is `schema` and whose SQL files are in `dir`. */
export const serviceMigrations =
  (schema: string, dir: string): ApplyMigrations =>
  (url, log) =>
    migrate({ url, schema, dir, log });

export interface MigrateCommandOptions {
  /** The service, named in the log. */
  name: string;
  apply: ApplyMigrations;
  /** The settings the command validates first; it fails, naming them, before touching the database. */
  loadConfig: () => { DATABASE_URL: string; LOG_LEVEL: string };
  createLogger: (name: string, level?: string) => Logger;
}

/**
 * The whole of a service's migrate command (`npm run migrate -w services/<name>`): validates the settings,
 * applies the pending migrations and exits 0, or logs why not and exits 1.
 */
export function runMigrateCommand(options: MigrateCommandOptions): void {
  const logName = `${options.name}-migrate`;
  let log = options.createLogger(logName);
  const run = async (): Promise<void> => {
    const config = options.loadConfig();
    log = options.createLogger(logName, config.LOG_LEVEL);
    await options.apply(config.DATABASE_URL, log);
  };
  run().then(
    () => process.exit(0),
    (err: unknown) => {
      log.fatal({ err }, `${options.name} migrations failed`);
      process.exit(1);
    },
  );
}
