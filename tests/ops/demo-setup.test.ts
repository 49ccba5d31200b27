import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Db } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { DEV_WEBHOOK_SECRET_KEY, SecretBox, ShopRepository, SHOPS_SCHEMA } from '@pl/shops/testing';

const ROOT = join(__dirname, '..', '..');
const log = pino({ level: 'silent' });

interface Run {
  code: number;
  stderr: string;
}

/** Runs a repository script as `npm start` does, with only `env` (and PATH) as its environment. */
const run = (command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> =>
  new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } }, (err, _stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr });
    });
  });

interface DemoRecord {
  merchant_id: string;
  shop_id: string;
  api_key: string;
  webhook_secret: string;
  standard_webhooks_secret: string;
}

/**
 * `npm start`'s demo setup (scripts/demo-setup.sh, the admin CLI and psql against a migrated database) with a
 * webhook secret that begins with `-`: a random base64url secret does one time in 64, and when the script
 * handed it to `node -e` as an argument, node refused it as an unknown option and the start failed.
 */
describe('the demo setup of npm start', () => {
  let database: TestDatabase;
  let dir: string;
  let shopsDb: Db;

  beforeAll(async () => {
    database = await createTestDatabase('demo');
    dir = await mkdtemp(join(tmpdir(), 'pl-demo-'));
    const migrated = await run(process.execPath, ['scripts/migrate-all.js'], { DATABASE_URL: database.url });
    expect(migrated).toMatchObject({ code: 0 });
    shopsDb = new Db({ url: database.url, schema: SHOPS_SCHEMA, log });
  });

  afterAll(async () => {
    await shopsDb?.close();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const setup = (secret: string): Promise<Run> =>
    run('bash', ['scripts/demo-setup.sh'], { DATABASE_URL: database.url, DEMO_DIR: dir, DEMO_WEBHOOK_SECRET: secret });
  const record = async (): Promise<DemoRecord> => JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')) as DemoRecord;

  it('makes the demo merchant and shop with a secret that begins with "-", records it and reuses it on the next start', async () => {
    const secret = `-${randomBytes(32).toString('base64url').slice(1)}`;
    const first = await setup(secret);
    expect(first).toEqual({ code: 0, stderr: expect.stringContaining('demo shop') });

    const demo = await record();
    expect(demo.webhook_secret).toBe(secret);
    expect(demo.standard_webhooks_secret).toBe(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`);
    const shops = new ShopRepository(shopsDb, SecretBox.fromBase64(DEV_WEBHOOK_SECRET_KEY));
    await expect(shops.getWebhookTarget(Number(demo.shop_id))).resolves.toMatchObject({ url: 'http://127.0.0.1:4242/webhooks', secret });

    const env = await readFile(join(dir, 'demo.env'), 'utf8');
    expect(env).toContain(`export WEBHOOK_SECRET='${secret}'\n`);
    // Keys and secrets: readable by their owner alone.
    expect((await stat(join(dir, 'demo.json'))).mode & 0o077).toBe(0);
    expect((await stat(join(dir, 'demo.env'))).mode & 0o077).toBe(0);

    // The next start finds the record good for this database and keeps the merchant, the shop and the secret.
    const second = await setup(`-${randomBytes(16).toString('hex')}`);
    expect(second).toEqual({ code: 0, stderr: expect.stringContaining(`demo shop ${demo.shop_id}: approved`) });
    await expect(record()).resolves.toEqual(demo);
  }, 120_000);
});
