/**
 * `npm run bench:ledger`: the shop's balance and the first page of its statement for a shop whose ledger holds
 * BENCH_LEDGER_ENTRIES (1,000,000) entries. Figures printed, not asserted.
 *
 * The system is started as `npm run bench` starts it (services from dist/, a fresh database). The shop's paid
 * links are written in bulk (INSERT … SELECT generate_series), and so is their ledger history: a transaction of
 * three entries per payment, as links.ledger_post writes it, with the running balance set to the entries' sum
 * (the database's deferred balance checks still run on every row). The newest 2,000 payments then go through
 * ledger_post itself, and ledger:verify must pass on the whole. Then, one request at a time with the merchant's
 * API key, through the gateway's HTTP routes (GET /merchant/v1/balance, GET /merchant/v1/balance-transactions),
 * or through the links service's NATS subjects when this gateway build has no such route:
 *   - the balance, repeated;
 *   - the statement's first page (limit 100), by shop and for all the merchant's shops, repeated.
 * Each case prints p50/p95/p99/max. Finally EXPLAIN (ANALYZE, BUFFERS) of the balance read and of the statement
 * page: the balance read must touch the shop's two account rows, never the entries.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { connect } from 'nats';
import { Client } from 'pg';
import { BusClient, IdentityTokens } from '@pl/bus';
import { subjects, type Identity } from '@pl/contracts';
import { Db } from '@pl/db';
import { verifyLedger } from '@pl/links';
import { createLogger } from '@pl/telemetry';
import { Fixtures } from './lib/fixtures';
import { runBench, type Lifecycle } from './lib/lifecycle';
import { int } from './lib/settings';
import { percentile } from './lib/stats';
import { ROOT, startBench } from './lib/system';

const ENTRIES = int('BENCH_LEDGER_ENTRIES', 1_000_000);
const REPEATS = int('BENCH_LEDGER_REPEATS', 500);
/** A payment posts three entries: clearing, available, revenue. */
const PAYMENTS = Math.ceil(ENTRIES / 3);
/** The newest payments, posted one by one through ledger_post after the bulk history. */
const LATEST = 2000;
const PAGE = 100;

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};
const round = (n: number): number => Math.round(n * 100) / 100;
function summary(name: string, latencies: number[]): string {
  const s = [...latencies].sort((a, b) => a - b);
  return `${name}: ${s.length} requests, p50 ${round(percentile(s, 50))} ms, p95 ${round(percentile(s, 95))}, p99 ${round(percentile(s, 99))}, max ${round(s.at(-1) ?? NaN)}`;
}

/** One read, timed client side (request sent to body read); throws unless it answered 200 with a body. */
type Read = () => Promise<{ ms: number; body: unknown }>;

function httpRead(url: string, headers: Record<string, string>): Read {
  return async () => {
    const started = performance.now();
    const res = await fetch(url, { headers });
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text}`);
    return { ms, body: JSON.parse(text) as unknown };
  };
}

async function main(life: Lifecycle): Promise<number> {
  const workDir = join(ROOT, '.local', 'bench');
  mkdirSync(workDir, { recursive: true });
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  const loadAtStart = load();
  out(`bench:ledger: ${ENTRIES.toLocaleString('en')} ledger entries of one shop, ${REPEATS} requests per case; load average ${loadAtStart}`);
  const { sys } = await startBench(life, join(workDir, 'ledger-logs'));
  const fixtures = new Fixtures(sys.database.url, sys.env.WEBHOOK_SECRET_KEY!);
  life.defer(() => fixtures.close());
  const linksDb = new Db({ url: sys.database.url, schema: 'links', log: createLogger('bench', 'warn'), max: 1 });
  life.defer(() => linksDb.close());
  // The seed's batches run longer than a service statement may (Db's 5 s timeout).
  const seeder = new Client({ connectionString: sys.database.url });
  life.defer(() => seeder.end());
  await seeder.connect();
  await seeder.query('SET search_path TO links');
  const nc = await connect({ servers: sys.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'bench-ledger' });
  life.defer(() => nc.close());
  const merchant = await fixtures.merchant();
  const shop = await fixtures.shop(merchant.id);
  const otherShop = await fixtures.shop(merchant.id);

  const seedStarted = Date.now();
  await fixtures.sql(
    `INSERT INTO links.payment_links (id, merchant_id, shop_id, amount, fee_bps, fee_percent_bp, crypto_bps, sbp_bps, fee_payer,
       payer_amount, merchant_credit, platform_revenue, status, gateway_provider, expires_at, paid_at, created_at, updated_at, livemode)
     SELECT gen_random_uuid(), $1::uuid, CASE WHEN g % 10 = 0 THEN $3::bigint ELSE $2::bigint END, 10000, 100, 100, 100, 100, 'merchant',
            10000, 9900, 100, 'paid', 'sandbox', now() + interval '1 day', now(), now(), now(), true
       FROM generate_series(1, $4::int) AS g`,
    [merchant.id, shop, otherShop, PAYMENTS],
  );
  // The history in bulk, as ledger_post writes a payment (a transaction of three entries: clearing −payer_amount,
  // available +merchant_credit, revenue +platform_revenue), its running balance set to the entries' sum; a
  // posting per link through the function would take many minutes. The newest LATEST payments then go through
  // ledger_post itself, on top of that history, and ledger:verify must find the whole ledger sound.
  const bulk = PAYMENTS - LATEST;
  const post = (type: string, rows: string) =>
    `SELECT count(ledger_post('${type}', id, NULL, NULL, payer_amount, platform_revenue, merchant_credit,
              jsonb_build_array(
                jsonb_build_object('account', 'clearing', 'provider', gateway_provider, 'amount', -payer_amount),
                jsonb_build_object('account', 'available', 'amount', merchant_credit),
                jsonb_build_object('account', 'revenue', 'amount', platform_revenue)))) FROM ${rows}`;
  // The accounts exist before the bulk rows name them: one real posting.
  await seeder.query(post('payment', `(SELECT DISTINCT ON (shop_id) * FROM payment_links WHERE merchant_id = $1 ORDER BY shop_id, id) AS first`), [
    merchant.id,
  ]);
  await seeder.query(
    `CREATE TEMP TABLE bench_history AS
       SELECT l.id AS link_id, gen_random_uuid() AS tx, l.shop_id, l.payer_amount, l.merchant_credit, l.platform_revenue,
              now() - interval '1 day' + row_number() OVER (ORDER BY l.id) * interval '1 millisecond' AS at
         FROM payment_links l
        WHERE l.merchant_id = $1 AND NOT EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.payment_link_id = l.id)
        ORDER BY l.id LIMIT $2`,
    [merchant.id, bulk],
  );
  await seeder.query('BEGIN');
  await seeder.query(
    `INSERT INTO ledger_transactions (id, type, livemode, merchant_id, shop_id, payment_link_id, amount, fee, net, balance_after, created_at)
     SELECT tx, 'payment', true, $1, shop_id, link_id, payer_amount, platform_revenue, merchant_credit,
            sum(merchant_credit) OVER (PARTITION BY shop_id ORDER BY at), at
       FROM bench_history`,
    [merchant.id],
  );
  await seeder.query(
    `INSERT INTO ledger_entries (transaction_id, account_id, amount)
     SELECT h.tx, a.id, CASE a.kind WHEN 'clearing' THEN -h.payer_amount WHEN 'available' THEN h.merchant_credit ELSE h.platform_revenue END
       FROM bench_history h
       JOIN ledger_accounts a ON a.livemode AND (a.kind IN ('clearing', 'revenue') OR (a.kind = 'available' AND a.shop_id = h.shop_id))`,
  );
  await seeder.query(
    `UPDATE ledger_accounts a SET balance = s.total, updated_at = now()
       FROM (SELECT e.account_id, sum(e.amount) AS total FROM ledger_entries e GROUP BY e.account_id) AS s
      WHERE s.account_id = a.id AND a.balance IS NOT NULL`,
  );
  await seeder.query('COMMIT');
  const latestStarted = performance.now();
  await seeder.query(
    post(
      'payment',
      `(SELECT l.* FROM payment_links l WHERE l.merchant_id = $1
                        AND NOT EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.payment_link_id = l.id)) AS latest`,
    ),
    [merchant.id],
  );
  const perPosting = (performance.now() - latestStarted) / LATEST;
  await fixtures.sql('VACUUM (ANALYZE) links.ledger_entries, links.ledger_transactions, links.ledger_accounts, links.payment_links');
  await fixtures.sql('CHECKPOINT');
  const [counts] = await fixtures.sql<{ entries: string; transactions: string; shop_entries: string }>(
    `SELECT (SELECT count(*) FROM links.ledger_entries) AS entries, (SELECT count(*) FROM links.ledger_transactions) AS transactions,
            (SELECT count(*) FROM links.ledger_entries e JOIN links.ledger_transactions t ON t.id = e.transaction_id WHERE t.shop_id = $1) AS shop_entries`,
    [shop],
  );
  out(
    `seeded ${Number(counts?.entries).toLocaleString('en')} entries in ${Number(counts?.transactions).toLocaleString('en')} transactions ` +
      `(${Number(counts?.shop_entries).toLocaleString('en')} of the measured shop's payments) in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s; ` +
      `the newest ${LATEST} through ledger_post, ${perPosting.toFixed(2)} ms each`,
  );
  out(`ledger:verify ${JSON.stringify(await verifyLedger(linksDb))}`);

  const balanceUrl = `${sys.gatewayUrl}/merchant/v1/balance?shop_id=${shop}`;
  const statementUrl = (query: Record<string, string>) =>
    `${sys.gatewayUrl}/merchant/v1/balance-transactions?${new URLSearchParams(query).toString()}`;
  const probe = await fetch(balanceUrl, { headers: merchant.headers });
  await probe.text();
  const viaHttp = probe.status === 200;
  let balance: Read;
  let statement: (shopId: number | null) => Read;
  if (viaHttp) {
    out('through the gateway: GET /merchant/v1/balance?shop_id=, GET /merchant/v1/balance-transactions (API key)');
    balance = httpRead(balanceUrl, merchant.headers);
    statement = (shopId) =>
      httpRead(statementUrl({ limit: String(PAGE), ...(shopId === null ? {} : { shop_id: String(shopId) }) }), merchant.headers);
  } else {
    out(`the gateway answered ${probe.status} for ${balanceUrl}: through the links service's NATS subjects instead`);
    const bus = new BusClient(nc, sys.namespace, new IdentityTokens(sys.env.IDENTITY_TOKEN_SECRET!));
    const identity: Identity = { kind: 'merchant', merchant_id: merchant.id, auth: 'api_key', email_confirmed: true, mode: 'live' };
    const timed =
      (work: () => Promise<unknown>): Read =>
      async () => {
        const started = performance.now();
        const body = await work();
        return { ms: performance.now() - started, body };
      };
    balance = timed(() => bus.request(subjects.balanceGet, { shop_id: shop }, identity));
    statement = (shopId) =>
      timed(() => bus.request(subjects.balanceTransactionsList, { shop_id: shopId, type: null, limit: PAGE, cursor: null }, identity));
  }

  const repeat = async (name: string, read: Read): Promise<unknown> => {
    let last: unknown;
    for (let i = 0; i < 50; i++) await read();
    const latencies: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const r = await read();
      latencies.push(r.ms);
      last = r.body;
    }
    out(`  ${summary(name, latencies)}`);
    return last;
  };
  out('cases (one request at a time, client-side latency in ms):');
  const answer = await repeat('balance', balance);
  out(`    answered ${JSON.stringify(answer)}`);
  await repeat(`statement first page (limit ${PAGE}), shop_id`, statement(shop));
  await repeat(`statement first page (limit ${PAGE}), all the merchant's shops`, statement(null));

  const explain = async (name: string, sql: string, params: unknown[]): Promise<void> => {
    const rows = await linksDb.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params);
    const plan = rows.map((r) => r['QUERY PLAN']);
    const scansEntries = plan.some((l) => l.includes('ledger_entries'));
    out();
    out(`EXPLAIN ${name}${scansEntries ? '  <-- READS LEDGER ENTRIES' : ''}:`);
    for (const line of plan) out(`  ${line}`);
  };
  // The services' own statements (data/ledger.repository.ts).
  await explain(
    'the balance read',
    `SELECT kind, balance, updated_at FROM ledger_accounts
      WHERE shop_id = $1 AND livemode = $2 AND kind IN ('available', 'refund_reserve') AND provider IS NULL`,
    [shop, true],
  );
  await explain(
    'the statement first page, by shop',
    `SELECT id, shop_id, type, amount, fee, net, balance_after, payment_link_id, refund_id, created_at
       FROM ledger_transactions
      WHERE shop_id = $1 AND livemode = $2 AND type IN ('payment', 'late_payment', 'refund', 'refund_failed') AND merchant_id = $3
      ORDER BY created_at DESC, id DESC LIMIT ${PAGE + 1}`,
    [shop, true, merchant.id],
  );
  out();
  out(`load average ${loadAtStart} at the start, ${load()} at the end`);
  return 0;
}

runBench('bench:ledger', main);
