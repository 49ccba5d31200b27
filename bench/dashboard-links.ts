/**
 * `npm run bench:dashboard-links`: the dashboard's links page (`GET /api/v1/payment-links`, a dashboard session)
 * for one merchant with BENCH_DASHBOARD_LINKS (100,000) links. Figures printed, not asserted. Method and
 * results: docs/benchmarks.md, "The dashboard's links page".
 *
 * The system is started as `npm run bench` starts it (services from dist/, NODE_ENV=test, tracing to a
 * sink in this process, a fresh database). The merchant's links are written in bulk (INSERT … SELECT
 * generate_series) across three shops and every status; another merchant holds as many, so the indexes hold
 * more than one merchant. Then, one request at a time with the session's Bearer token:
 *   - the first page, repeated;
 *   - every page, following next_cursor to the end (limit 100: 1,000 pages for 100,000 links);
 *   - the same walks filtered by status (common, rare, newest), by shop and by shop + status;
 *   - the order_id filter, random order ids.
 * Each case prints p50/p95/p99/max. Finally EXPLAIN (ANALYZE, BUFFERS) of the links service's list query for each
 * filter, first page and deep, names the index each one walks and flags a sequential scan or a sort.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Db } from '@pl/db';
import { AccountRepository } from '@pl/gateway';
import { createLogger } from '@pl/telemetry';
import { Fixtures } from './lib/fixtures';
import { runBench, type Lifecycle } from './lib/lifecycle';
import { int } from './lib/settings';
import { percentile } from './lib/stats';
import { BENCH_OVERRIDES, ROOT, startBench } from './lib/system';

const LINKS = int('BENCH_DASHBOARD_LINKS', 100_000);
/** Requests of each repeated case (first pages, order ids). */
const REPEATS = int('BENCH_DASHBOARD_REPEATS', 300);
const PAGE = 100;
/** The newest links are pending (older ones have expired, been paid or canceled); every 500th is failed. */
const PENDING_NEWEST = 2000;

// startBenchSystem's only hook for settings is BENCH_OVERRIDES (spread last into every service's environment).
// The dashboard merchant pages through 1,000+ pages a minute with one session; the production limit (600 a
// minute per session) would answer 429 long before. The limiter still runs (one Redis round trip per request).
BENCH_OVERRIDES.RATE_LIMIT_SESSION_PER_MINUTE = '1000000000';

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

interface ListPage {
  payment_links: { id: string; status: string; shop_id: number; order_id: string | null }[];
  has_more: boolean;
  next_cursor: string | null;
}

interface CaseResult {
  name: string;
  requests: number;
  links: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const round = (n: number): number => Math.round(n * 100) / 100;
function summary(name: string, latencies: number[], links: number): CaseResult {
  const s = [...latencies].sort((a, b) => a - b);
  return {
    name,
    requests: s.length,
    links,
    p50: round(percentile(s, 50)),
    p95: round(percentile(s, 95)),
    p99: round(percentile(s, 99)),
    max: round(s[s.length - 1] ?? NaN),
  };
}

class Client {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** One list request; its latency (ms, client side: request sent to body read) and the page. */
  async list(query: Record<string, string>): Promise<{ ms: number; page: ListPage }> {
    const url = `${this.baseUrl}/api/v1/payment-links?${new URLSearchParams(query).toString()}`;
    const started = performance.now();
    const res = await fetch(url, { headers: { Authorization: `Bearer ${this.token}` } });
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text}`);
    return { ms, page: JSON.parse(text) as ListPage };
  }

  /** Every page of a filter, following next_cursor; checks that no link repeats and each matches the filter. */
  async walk(
    filter: Record<string, string>,
    matches: (l: ListPage['payment_links'][number]) => boolean,
  ): Promise<{ latencies: number[]; links: number }> {
    const latencies: number[] = [];
    const seen = new Set<string>();
    let cursor: string | null = null;
    for (;;) {
      const { ms, page } = await this.list({ ...filter, limit: String(PAGE), ...(cursor ? { cursor } : {}) });
      latencies.push(ms);
      for (const l of page.payment_links) {
        if (seen.has(l.id)) throw new Error(`link ${l.id} listed twice while walking ${JSON.stringify(filter)}`);
        if (!matches(l)) throw new Error(`link ${l.id} (${l.status}, shop ${l.shop_id}) does not match ${JSON.stringify(filter)}`);
        seen.add(l.id);
      }
      if (!page.has_more) break;
      if (!page.next_cursor) throw new Error('has_more without next_cursor');
      cursor = page.next_cursor;
    }
    return { latencies, links: seen.size };
  }
}

/** The plan of one list query: the indexes it walks, and whether it scans the table or sorts. */
interface PlanSummary {
  name: string;
  indexes: string[];
  seqScan: boolean;
  sort: boolean;
  rowsRead: number;
  buffers: number;
  executionMs: number;
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

function summarizePlan(name: string, plan: { Plan: PlanNode; 'Execution Time': number }): PlanSummary {
  const s: PlanSummary = {
    name,
    indexes: [],
    seqScan: false,
    sort: false,
    rowsRead: 0,
    buffers: (plan.Plan['Shared Hit Blocks'] ?? 0) + (plan.Plan['Shared Read Blocks'] ?? 0),
    executionMs: round(plan['Execution Time']),
  };
  const visit = (n: PlanNode): void => {
    if (n['Index Name'] && !s.indexes.includes(n['Index Name'])) s.indexes.push(n['Index Name']);
    if (n['Node Type'] === 'Seq Scan') s.seqScan = true;
    if (n['Node Type'].includes('Sort')) s.sort = true;
    if (n['Node Type'].endsWith('Scan')) s.rowsRead += ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1);
    for (const c of n.Plans ?? []) visit(c);
  };
  visit(plan.Plan);
  return s;
}

async function main(life: Lifecycle): Promise<number> {
  const workDir = join(ROOT, '.local', 'bench');
  mkdirSync(workDir, { recursive: true });
  const startedAt = new Date();
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  const loadAtStart = load();
  out(
    `bench:dashboard-links: ${LINKS.toLocaleString('en')} links of one merchant, pages of ${PAGE}, ${REPEATS} requests per repeated case; ` +
      `load average ${loadAtStart}`,
  );
  const { sys } = await startBench(life, join(workDir, 'dashboard-links-logs'));
  const fixtures = new Fixtures(sys.database.url, sys.env.WEBHOOK_SECRET_KEY!);
  life.defer(() => fixtures.close());
  const log = createLogger('bench', 'warn');
  const accountsDb = new Db({ url: sys.database.url, schema: 'gateway', log, max: 1 });
  life.defer(() => accountsDb.close());
  // The dashboard merchant, with a password to sign in with; and a neighbour with as many links.
  const email = `bench-dashboard-${randomBytes(6).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const { merchant } = await new AccountRepository(accountsDb).createMerchant({ email, password, emailConfirmed: true });
  const shops = [await fixtures.shop(merchant.id), await fixtures.shop(merchant.id), await fixtures.shop(merchant.id)];
  const neighbour = await fixtures.merchant();
  const neighbourShop = await fixtures.shop(neighbour.id);

  const seedStarted = Date.now();
  const newest = new Date(Date.now() - 3600_000);
  // Shops take 60 / 30 / 10 %; two links per order id (a retry), every 50th without one; 30 s apart.
  await fixtures.sql(
    `INSERT INTO links.payment_links (id, merchant_id, shop_id, order_id, amount, fee_bps, fee_percent_bp, crypto_bps, sbp_bps,
       fee_payer, payer_amount, merchant_credit, platform_revenue, status, expires_at, paid_at, created_at, updated_at, livemode)
     SELECT gen_random_uuid(), $1::uuid, CASE WHEN g % 10 < 6 THEN $2::bigint WHEN g % 10 < 9 THEN $3::bigint ELSE $4::bigint END,
            CASE WHEN g % 50 = 0 THEN NULL ELSE 'order-' || (g / 2) END,
            10000, 100, 100, 100, 100, 'merchant', 10000, 9900, 100,
            st, CASE WHEN st = 'pending' THEN now() + interval '1 day' ELSE c + interval '1 hour' END,
            CASE WHEN st = 'paid' THEN c + interval '10 minutes' END, c, c, true
       FROM (SELECT g, $5::timestamptz - g * interval '30 seconds' AS c,
                    CASE WHEN g < $6 THEN 'pending' WHEN g % 500 = 7 THEN 'failed'
                         ELSE (ARRAY['paid', 'expired', 'paid', 'canceled', 'paid', 'expired'])[1 + g % 6] END AS st
               FROM generate_series(0, $7::int - 1) AS g) AS s`,
    [merchant.id, shops[0], shops[1], shops[2], newest.toISOString(), PENDING_NEWEST, LINKS],
  );
  for (let from = 0; from < LINKS; from += 100_000) {
    await fixtures.seedHistory({
      merchantId: neighbour.id,
      shopId: neighbourShop,
      from,
      count: Math.min(100_000, LINKS - from),
      newest,
      stepMs: 30_000,
      pendingNewest: 100,
    });
  }
  await fixtures.settleAfterBulkLoad();
  const counts = await fixtures.sql<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM links.payment_links WHERE merchant_id = $1 GROUP BY status ORDER BY status',
    [merchant.id],
  );
  out(
    `seeded ${(LINKS * 2).toLocaleString('en')} links (half the merchant's: ${counts.map((c) => `${c.status} ${Number(c.n).toLocaleString('en')}`).join(', ')}), ` +
      `vacuumed and checkpointed in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`,
  );

  const login = await fetch(`${sys.gatewayUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const loginText = await login.text();
  if (login.status !== 200) throw new Error(`login: ${login.status} ${loginText}`);
  const client = new Client(sys.gatewayUrl, (JSON.parse(loginText) as { session_token: string }).session_token);

  // Warm-up: connections, the gateway's session and shop caches, the JIT.
  for (let i = 0; i < 50; i++) await client.list({ limit: String(PAGE) });

  const results: CaseResult[] = [];
  const record = (r: CaseResult): void => {
    results.push(r);
    out(`  ${r.name}: ${r.requests} requests, ${r.links.toLocaleString('en')} links, p50 ${r.p50} ms, p95 ${r.p95}, p99 ${r.p99}, max ${r.max}`);
  };
  const repeat = async (name: string, query: () => Record<string, string>): Promise<void> => {
    const latencies: number[] = [];
    let links = 0;
    for (let i = 0; i < REPEATS && !life.interrupted; i++) {
      const r = await client.list(query());
      latencies.push(r.ms);
      links += r.page.payment_links.length;
    }
    record(summary(name, latencies, links));
  };
  const walk = async (name: string, filter: Record<string, string>, matches: (l: ListPage['payment_links'][number]) => boolean): Promise<void> => {
    const w = await client.walk(filter, matches);
    record(summary(name, w.latencies, w.links));
  };

  out('cases (one request at a time, client-side latency in ms):');
  await repeat('first page, limit 100', () => ({ limit: String(PAGE) }));
  const all = await client.walk({}, () => true);
  if (all.links !== LINKS) throw new Error(`the walk saw ${all.links} links, not ${LINKS}`);
  record(summary(`every page via next_cursor (${all.latencies.length} pages)`, all.latencies, all.links));
  record(summary('  of which the last 100 pages', all.latencies.slice(-100), 100 * PAGE));
  await repeat('first page, status=paid', () => ({ limit: String(PAGE), status: 'paid' }));
  await walk('every page, status=paid', { status: 'paid' }, (l) => l.status === 'paid');
  await repeat('first page, status=failed (0.2 %)', () => ({ limit: String(PAGE), status: 'failed' }));
  await walk('every page, status=failed (0.2 %)', { status: 'failed' }, (l) => l.status === 'failed');
  await walk('every page, status=pending (newest 2 %)', { status: 'pending' }, (l) => l.status === 'pending');
  await repeat('first page, status=expired', () => ({ limit: String(PAGE), status: 'expired' }));
  await repeat(`first page, shop_id (10 % shop)`, () => ({ limit: String(PAGE), shop_id: String(shops[2]) }));
  await walk('every page, shop_id (10 % shop)', { shop_id: String(shops[2]) }, (l) => l.shop_id === shops[2]);
  await walk('every page, shop_id (60 % shop)', { shop_id: String(shops[0]) }, (l) => l.shop_id === shops[0]);
  await walk(
    'every page, shop_id + status=canceled',
    { shop_id: String(shops[1]), status: 'canceled' },
    (l) => l.shop_id === shops[1] && l.status === 'canceled',
  );
  let orderHits = 0;
  const orderLatencies: number[] = [];
  for (let i = 0; i < REPEATS && !life.interrupted; i++) {
    const r = await client.list({ limit: String(PAGE), order_id: `order-${1 + Math.floor(Math.random() * (LINKS / 2 - 1))}` });
    orderLatencies.push(r.ms);
    orderHits += r.page.payment_links.length;
  }
  record(summary('order_id, random order ids', orderLatencies, orderHits));

  // The links service's list query (services/links/src/data/link.repository.ts) with each filter, first page and 90 % deep.
  const deep = (
    await fixtures.sql<{ created_at: string; id: string }>(
      `SELECT created_at::text, id FROM links.payment_links WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
      [merchant.id, Math.floor(LINKS * 0.9)],
    )
  )[0]!;
  const plans: PlanSummary[] = [];
  const explain = async (name: string, where: string, params: unknown[], deepPage: boolean): Promise<void> => {
    const all = [merchant.id, ...params];
    let cond = where;
    if (deepPage) {
      all.push(deep.created_at, deep.id);
      cond += ` AND (created_at, id) < ($${all.length - 1}::timestamptz, $${all.length}::uuid)`;
    }
    const rows = await fixtures.sql<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM links.payment_links WHERE merchant_id = $1 ${cond}
        ORDER BY created_at DESC, id DESC LIMIT ${PAGE + 1}`,
      all,
    );
    plans.push(summarizePlan(`${name}${deepPage ? ', 90 % deep' : ', first page'}`, rows[0]!['QUERY PLAN'][0]));
  };
  for (const deepPage of [false, true]) {
    await explain('no filter', '', [], deepPage);
    await explain('status=paid', 'AND status = $2', ['paid'], deepPage);
    await explain('status=failed', 'AND status = $2', ['failed'], deepPage);
    await explain('status=pending', 'AND status = $2', ['pending'], deepPage);
    await explain('shop_id (10 %)', 'AND shop_id = $2', [shops[2]], deepPage);
    await explain('shop_id + status=canceled', 'AND shop_id = $2 AND status = $3', [shops[1], 'canceled'], deepPage);
  }
  await explain('order_id', 'AND order_id = $2', ['order-12345'], false);
  // What a status=expired list (and a page holding a due pending link) runs first: the links service's expireDue, as a SELECT.
  const due = await fixtures.sql<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT id FROM links.payment_links WHERE merchant_id = $1 AND status = 'pending' AND expires_at <= now()`,
    [merchant.id],
  );
  plans.push(summarizePlan('expire-due scan (before a status=expired list)', due[0]!['QUERY PLAN'][0]));
  out();
  out('EXPLAIN (ANALYZE) of the list query at this size:');
  for (const p of plans) {
    const flag = p.seqScan || p.sort ? `  <-- ${[p.seqScan ? 'SEQ SCAN' : '', p.sort ? 'SORT' : ''].filter(Boolean).join(' + ')}` : '';
    out(`  ${p.name}: ${p.indexes.join(', ') || '(no index)'}; rows read ${p.rowsRead}, buffers ${p.buffers}, ${p.executionMs} ms${flag}`);
  }

  out();
  out(`load average ${loadAtStart} at the start, ${load()} at the end`);
  const report = {
    startedAt,
    finishedAt: new Date(),
    loadAverage: { start: loadAtStart, end: load() },
    links: LINKS,
    page: PAGE,
    repeats: REPEATS,
    statuses: counts,
    results,
    plans,
  };
  writeFileSync(join(workDir, 'dashboard-links.json'), `${JSON.stringify(report, null, 2)}\n`);
  out();
  out('bench:dashboard-links: results written to .local/bench/dashboard-links.json');
  return 0;
}

runBench('bench:dashboard-links', main);
