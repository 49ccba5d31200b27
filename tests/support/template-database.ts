import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { migrateGateway } from '@pl/gateway';
import { migrateLinks } from '@pl/links';
import { migrateNotifier } from '@pl/notifier';
import { migrateShops } from '@pl/shops';
import { createLogger } from '@pl/telemetry';
// From source, not @pl/testing's dist: Jest loads this file without its module map, and this is where the name is.
import { ADMIN_DATABASE_URL, createTestDatabase, TEMPLATE_DATABASE_ENV } from '../../libs/testing/src/database';

/**
 * Jest's globalSetup: a database with every service's migrations applied, which startSystem copies
 * (`CREATE DATABASE … TEMPLATE`, a fifth of a second) instead of migrating a fresh one (a second or more, in each of
 * some 60 suites). Its name is a hash of the migration files and today's date (migrations make day partitions around
 * today), so a run reuses the one an earlier run made from the same files that day, and never one from other files.
 * It takes no connections (ALLOW_CONNECTIONS false): a connection to a template stops every copy of it. startSystem
 * still runs the migrations on its copy (none left to apply), so a copy of a missing template ends up the same.
 */
const SERVICES = ['gateway', 'shops', 'links', 'notifier'] as const;
const ROOT = join(__dirname, '..', '..');
const PREFIX = 'pl_tpl_';

const utcDay = (at: Date): string => at.toISOString().slice(0, 10).replace(/-/g, '');

function templateName(now: Date): string {
  const hash = createHash('sha256');
  for (const service of SERVICES) {
    const dir = join(ROOT, 'services', service, 'migrations');
    for (const file of readdirSync(dir).sort())
      hash
        .update(`${service}/${file}\0`)
        .update(readFileSync(join(dir, file)))
        .update('\0');
  }
  return `${PREFIX}${utcDay(now)}_${hash.digest('hex').slice(0, 16)}`;
}

async function withAdmin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export default async function globalSetup(): Promise<void> {
  const now = new Date();
  const name = templateName(now);
  let exists: boolean;
  try {
    exists = await withAdmin(async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);
  } catch (e) {
    // No Postgres (a run of unit tests alone, say): nothing to copy; a test that needs a database fails on its own.
    if ((e as { code?: string }).code !== 'ECONNREFUSED') throw e;
    return;
  }
  if (!exists) {
    const log = createLogger('test-template', 'silent');
    const build = await createTestDatabase('tplbuild');
    for (const migrate of [migrateGateway, migrateShops, migrateLinks, migrateNotifier]) await migrate(build.url, log);
    await withAdmin(async (c) => {
      await c.query(`ALTER DATABASE ${build.name} WITH ALLOW_CONNECTIONS false`);
      // 42P04: a run beside this one made the same template first; its copy serves.
      await c.query(`ALTER DATABASE ${build.name} RENAME TO ${name}`).catch(async (e: unknown) => {
        if ((e as { code?: string }).code !== '42P04') throw e;
        await c.query(`DROP DATABASE ${build.name} WITH (FORCE)`);
      });
      // Templates of days before yesterday: no run still copies them (one from yesterday may, past midnight).
      const yesterday = utcDay(new Date(now.getTime() - 86_400_000));
      const old = await c.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname ~ '^pl_tpl_[0-9]{8}_[0-9a-f]{16}$' AND datname < $1",
        [`${PREFIX}${yesterday}`],
      );
      for (const { datname } of old.rows) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    });
  }
  // Read by startSystem in every worker (Jest starts them after this, with this environment).
  process.env[TEMPLATE_DATABASE_ENV] = name;
}
