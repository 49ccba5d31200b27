#!/usr/bin/env node
// `npm run migrate`: applies every service's migrations (each to its own schema) against DATABASE_URL.
// Runs the built code (services/<name>/dist/data/migrate.js), so `npm run build` comes first.
'use strict';

const { existsSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const SERVICES = [
  { dir: 'gateway', fn: 'migrateGateway', required: true },
  { dir: 'shops', fn: 'migrateShops', required: true },
  { dir: 'links', fn: 'migrateLinks', required: true },
  { dir: 'notifier', fn: 'migrateNotifier', required: false },
];

async function main() {
  const { createLogger } = require(join(ROOT, 'libs/telemetry/dist/index.js'));
  const log = createLogger('migrate');
  const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/payment_links';
  for (const service of SERVICES) {
    const file = join(ROOT, 'services', service.dir, 'dist', 'data', 'migrate.js');
    if (!existsSync(file)) {
      if (service.required) throw new Error(`${file} is missing: run \`npm run build\` first`);
      log.info({ target: service.dir }, 'no migrations to apply');
      continue;
    }
    const migrateFn = require(file)[service.fn];
    if (typeof migrateFn !== 'function') throw new Error(`${file} does not export ${service.fn}`);
    await migrateFn(url, log);
  }
  log.info('all migrations applied');
}

main().catch((err) => {
  process.stderr.write(`migrate failed: ${err && err.stack ? err.stack : String(err)}\n`);
  process.exit(1);
});
