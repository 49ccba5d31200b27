import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseExchangeFile } from '@pl/payout-rails';
import { check, type BenchContext } from '../context';
import { int } from '../settings';
import { ROOT } from '../system';

const run = promisify(execFile);

/** Payouts per seeded merchant: payout_create sums the merchant's last 24 hours on each, so a few per merchant keep seeding linear. */
const PER_MERCHANT = 100;
/** What an operator may wait for an export of 10,000 orders, and the memory the CLI may take for it, on this machine. */
const EXPORT_SECONDS = 10;
const EXPORT_MIB = 256;

/** The platform's account (Sberbank's published INN, KPP and BIK; the account's control key computed for the BIK). */
const PAYER_ENV = {
  PAYOUT_PAYER_NAME: 'ООО «Платёжные ссылки»',
  PAYOUT_PAYER_INN: '7707083893',
  PAYOUT_PAYER_KPP: '773601001',
  PAYOUT_PAYER_BIK: '044525225',
  PAYOUT_PAYER_ACCOUNT: '40702810938000012345',
  PAYOUT_PAYER_BANK: 'ПАО СБЕРБАНК',
};
const SEED_ORDER = 'bench-payouts';
const PAYEE = `{"recipient_name": "ООО \\"Ромашка\\"", "inn": "7830002293", "kpp": "783001001", "bik": "044525974", "account": "40802810400000012345"}`;

/**
 * `merchants` accounts, each with a shop credited by one paid link (ledger_post, as a settled payment posts), in the
 * links schema. Committed before the payouts are made: a credit posted in the payout's own transaction is still
 * within the hold, even a hold of 0 hours.
 */
const fundSql = (merchants: number): string => `
SET search_path = links;
DO $$
DECLARE
  v_link uuid;
BEGIN
  FOR k IN 1..${merchants} LOOP
    v_link := gen_random_uuid();
    INSERT INTO payment_links (id, merchant_id, shop_id, order_id, amount, fee_bps, fee_percent_bp, crypto_bps, sbp_bps, fee_payer,
                               payer_amount, merchant_credit, platform_revenue, status, expires_at, paid_at, created_at, updated_at, livemode)
    VALUES (v_link, gen_random_uuid(), 800000000 + k, '${SEED_ORDER}', 1000000000, 100, 100, 100, 100, 'merchant', 1000000000, 990000000,
            10000000, 'paid', now() + interval '1 day', now() - interval '2 days', now() - interval '2 days', now() - interval '2 days', true);
    PERFORM ledger_post('payment', v_link, NULL, NULL, 1000000000, 10000000, 990000000, jsonb_build_array(
      jsonb_build_object('account', 'clearing', 'provider', 'sandbox', 'amount', -1000000000),
      jsonb_build_object('account', 'available', 'amount', 990000000),
      jsonb_build_object('account', 'revenue', 'amount', 10000000)));
  END LOOP;
END $$;`;

/** PER_MERCHANT approved live bank payouts of each funded shop by payout_create (its postings and checks, no hold), 100.00 to 999.99. */
const payoutsSql = `
SET search_path = links;
SELECT payout_create(gen_random_uuid(), l.merchant_id, l.shop_id, true, 10000 + (g * 7919) % 89999, 0, 'approved', NULL,
                     gen_random_uuid(), 'bank_account', '•••• 2345', '${PAYEE}'::jsonb, 'bank', gen_random_uuid(), now(), 0, 1000000000000)
  FROM payment_links l CROSS JOIN generate_series(1, ${PER_MERCHANT}) AS g
 WHERE l.order_id = '${SEED_ORDER}'
 ORDER BY l.shop_id, g;`;

/** The CLI as an operator runs it (node tools/admin/dist/main.js), timed, with its peak resident memory. */
async function admin(ctx: BenchContext, args: string[]): Promise<{ result: Record<string, unknown>; seconds: number; maxRssMiB: number }> {
  // The child reports its own peak RSS on exit: the one figure no parent API gives for a child.
  const hook = 'data:text/javascript,process.on("exit",()=>process.stderr.write("maxrss_kb="+process.resourceUsage().maxRSS+"\\n"))';
  const started = performance.now();
  const { stdout, stderr } = await run(process.execPath, ['--import', hook, join(ROOT, 'tools', 'admin', 'dist', 'main.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: ctx.sys.database.url, ...PAYER_ENV },
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  const rssKb = Number(/maxrss_kb=(\d+)/.exec(stderr)?.[1] ?? NaN);
  return { result: JSON.parse(stdout) as Record<string, unknown>, seconds, maxRssMiB: Math.round((rssKb / 1024) * 10) / 10 };
}

/**
 * A bank batch of BENCH_PAYOUT_BATCH (10,000) payouts: `payout:batch:create` (one transaction: the lock, the items and
 * the move to processing) and `payout:batch:export` (the 1C file of as many payment orders, written atomically), each
 * as a process of its own, with its wall time and peak memory; the file is parsed back and must hold every order
 * (docs/benchmarks.md, "Payout batch").
 */
export async function payoutBatchScenario(ctx: BenchContext): Promise<void> {
  const n = int('BENCH_PAYOUT_BATCH', 10_000, PER_MERCHANT);
  const merchants = Math.ceil(n / PER_MERCHANT);
  ctx.log(
    `payout-batch: ${(merchants * PER_MERCHANT).toLocaleString('en')} approved bank payouts, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const seedStart = performance.now();
  await ctx.fixtures.sql(fundSql(merchants));
  await ctx.fixtures.sql(payoutsSql);
  await ctx.fixtures.sql('ANALYZE links.payouts');
  ctx.log(`    seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

  const create = await admin(ctx, ['payout:batch:create']);
  const batchId = String(create.result.batch_id);
  ctx.log(`    payout:batch:create: ${String(create.result.count)} payouts, ${create.seconds.toFixed(2)} s, max RSS ${create.maxRssMiB} MiB`);
  const out = join(ctx.workDir, 'payout-batch.txt');
  const exported = await admin(ctx, ['payout:batch:export', '--batch', batchId, '--out', out]);
  const bytes = readFileSync(out);
  const orders = parseExchangeFile(bytes).documents.length;
  rmSync(out, { force: true });
  ctx.log(
    `    payout:batch:export: ${orders} orders, ${(bytes.length / 2 ** 20).toFixed(1)} MiB file, ${exported.seconds.toFixed(2)} s, max RSS ${exported.maxRssMiB} MiB; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  ctx.details['payout-batch'] = { payouts: create.result.count, create, export: exported, fileBytes: bytes.length, orders };
  ctx.rows.push({
    scenario: `payout batch: create + export of ${orders.toLocaleString('en')} orders (one process each)`,
    target: 'system',
    rps: null,
    p50: null,
    p99: null,
    errors: orders === create.result.count ? 0 : 1,
    cpu: null,
    note: `create ${create.seconds.toFixed(2)} s / ${create.maxRssMiB} MiB; export ${exported.seconds.toFixed(2)} s / ${exported.maxRssMiB} MiB`,
  });
  check(
    ctx,
    `a batch of ${n.toLocaleString('en')} exported in ≤ ${EXPORT_SECONDS} s within ${EXPORT_MIB} MiB, every order in the file`,
    `${orders} orders in ${exported.seconds.toFixed(2)} s, max RSS ${exported.maxRssMiB} MiB`,
    orders === create.result.count && exported.seconds <= EXPORT_SECONDS && exported.maxRssMiB <= EXPORT_MIB,
  );
}
