import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /**
   * The Postgres server to create the database on, as a URL without a database
   * (`postgres://postgres@127.0.0.1:54321`): a test's private server, say. Default: the machine's.
   */
  hostUrl?: string;
  /**
   * A database on the same server to copy (`CREATE DATABASE … TEMPLATE`): one already migrated, say, which a copy
   * of makes in a fraction of a second what migrating makes in one or two. When it is gone, the database starts empty.
   */
  template?: string;
}

/** The `postgres` maintenance database of a server given by its URL. */
const adminUrlOf = (hostUrl: string): string => {
  const url = new URL(hostUrl);
  url.pathname = '/postgres';
  return url.toString();
};

const withAdmin = async <T>(adminUrl: string, fn: (c: Client) => Promise<T>): Promise<T> => {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
};

/** A fresh, empty database of its own for one test file, so Jest workers never share state. */
export async function createTestDatabase(label = 'test', options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const adminUrl = options.hostUrl === undefined ? ADMIN_DATABASE_URL : adminUrlOf(options.hostUrl);
  const name = `pl_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(5).toString('hex')}`;
  await withAdmin(adminUrl, async (c) => {
    if (options.template === undefined) return c.query(`CREATE DATABASE ${name}`);
    if (!/^[a-z0-9_]+$/.test(options.template)) throw new Error(`not a template database name: ${options.template}`);
    // 3D000: no such database (dropped by a run that tidied up); the caller's migrations then make it all.
    return c.query(`CREATE DATABASE ${name} TEMPLATE ${options.template}`).catch((e: unknown) => {
      if ((e as { code?: string }).code !== '3D000') throw e;
      return c.query(`CREATE DATABASE ${name}`);
    });
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * Where Jest's globalSetup (tests/support/template-database.ts) names the run's template: a database with every
 * service's migrations applied, on the machine's server.
 */
export const TEMPLATE_DATABASE_ENV = 'PL_TEST_TEMPLATE_DATABASE';

/**
 * Options that copy the run's migrated template when there is one (the machine's server only). The caller still runs
 * its migrations: they find nothing to apply on a copy, and everything on an empty database.
 */
export const fromMigratedTemplate = (): TestDatabaseOptions => {
  const template = process.env[TEMPLATE_DATABASE_ENV];
  return template === undefined ? {} : { template };
};

/** A NATS subject namespace (and Redis key prefix) unique to one test, so parallel tests never answer each other. */
export const uniqueNamespace = (label = 't'): string => `${label}_${randomBytes(6).toString('hex')}`;
