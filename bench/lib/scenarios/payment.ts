import { Db } from '@pl/db';
import { verifyLedger } from '@pl/links';
import { createLogger } from '@pl/telemetry';
import { check, cpuMsPerRequest, type BenchContext } from '../context';
import { paymentStages } from '../payment-stages';
import { BenchReceiver } from '../receivers';
import { CALLBACK_PATH, paymentsAt, sandboxCallbackOf, type PaymentTarget } from './payment-run';
const WARMUP_SECONDS = 2;

/**
 * The payment path: signed sandbox-provider callbacks at a fixed rate (open loop, from the load process),
 * and the merchant's webhook receiver here; per link, webhook received − callback answered. Each payment's
 * settle posts its ledger transaction in the same statement (docs/money.md, "The ledger"), so the figure is the
 * path with the posting; the run confirms every accepted callback posted exactly once and the ledger verifies.
 */
export async function paymentScenario(ctx: BenchContext): Promise<void> {
  const { settings, sys } = ctx;
  const rate = settings.paymentRate;
  ctx.log(`payment path: callbacks at ${rate}/s for ${settings.seconds} s (+${WARMUP_SECONDS} s warm-up) → webhook`);
  const receiver = await BenchReceiver.start();
  try {
    const { merchantId, target } = await paymentShop(ctx, receiver);
    // BENCH_STAGES=1: keep every span of the run and time each hop (parsing them costs the bench some CPU).
    const stagesWanted = process.env.BENCH_STAGES === '1';
    const run = await paymentsAt(ctx, target, merchantId, {
      rate,
      seconds: settings.seconds,
      warmupSeconds: WARMUP_SECONDS,
      waitMs: 30_000,
      onMeasuring: () => {
        if (stagesWanted) ctx.sink.startRecording();
      },
    });
    const { achieved, callback, endToEnd: e2e, missing, cpu, pg } = run;
    const ledger = await ledgerOfRun(sys.database.url, target.shopId);
    // Spans leave the services in batches (every 5 s at the latest); wait for the last ones before timing.
    if (stagesWanted) await new Promise((r) => setTimeout(r, 6000));
    const stages = stagesWanted ? paymentStages(ctx.sink.stopRecording()) : null;

    ctx.rows.push({
      scenario: `payment: provider callback at ${rate}/s`,
      target: 'system',
      rps: achieved,
      p50: callback.p50,
      p99: callback.p99,
      errors: run.measured - run.accepted,
      cpu,
      cpuMsPerRequest: cpuMsPerRequest(cpu, achieved, 'system'),
      note: 'callback answered; CPU/req covers the webhook too',
    });
    ctx.rows.push({
      scenario: 'payment: callback answered → webhook received',
      target: 'system',
      rps: null,
      p50: e2e.p50,
      p99: e2e.p99,
      errors: missing,
      cpu: null,
      note: `max ${e2e.max} ms; errors = webhooks missing after 30 s`,
    });
    ctx.log(
      `    callbacks ${achieved}/s (send lag max ${run.maxSendLagMs} ms), answered p50 ${callback.p50} / p99 ${callback.p99} ms; ` +
        `→ webhook p50 ${e2e.p50} / p90 ${e2e.p90} / p99 ${e2e.p99} / max ${e2e.max} ms; missing ${missing}`,
    );
    ctx.log(
      `    ledger: ${ledger.postedOnce} of ${ledger.paid} paid links posted once, ${ledger.postings} payment postings; ` +
        `ledger:verify ${JSON.stringify(ledger.verification)}`,
    );
    ctx.log(`    postgres: ${pg.slice(0, 4).join(' | ')}`);
    if (stages) {
      ctx.log(`    stages of ${stages.payments} payments (p50 / p99 ms):`);
      for (const st of stages.stages) ctx.log(`      ${st.stage.padEnd(52)} ${String(st.p50).padStart(7)} / ${st.p99}`);
    }
    ctx.details.payment = {
      rate,
      achieved,
      callback,
      endToEnd: e2e,
      missing,
      rejected: run.measured - run.accepted,
      maxSendLagMs: run.maxSendLagMs,
      cpu,
      postgresActivity: pg,
      stages,
      ledger,
    };
    check(
      ctx,
      `payment path p99 ≤ 100 ms (callback accepted → webhook received, ledger posting included) at ${rate}/s`,
      `p99 ${e2e.p99} ms (p50 ${e2e.p50}, max ${e2e.max}), ${missing} missing`,
      e2e.p99 <= 100 && missing === 0 && run.accepted === run.measured,
    );
    check(
      ctx,
      'every paid link posted to the ledger once; ledger:verify 0 unbalanced, 0 mismatched',
      `${ledger.postedOnce} of ${ledger.paid} posted once (${ledger.postings} postings); unbalanced ${ledger.verification.unbalanced}, ` +
        `mismatched ${ledger.verification.balances_mismatched}`,
      ledger.postedOnce === ledger.paid &&
        ledger.postings === ledger.paid &&
        ledger.verification.unbalanced === 0 &&
        ledger.verification.balances_mismatched === 0,
    );
  } finally {
    await receiver.close();
  }
}

/**
 * A merchant and a shop whose webhooks go to `receiver`, with one payment made end to end first: the notifier's
 * consumer has joined its group and the topic exists before anything is timed.
 */
export async function paymentShop(ctx: BenchContext, receiver: BenchReceiver): Promise<{ merchantId: string; target: PaymentTarget }> {
  const merchant = await ctx.fixtures.merchant();
  const shopId = await ctx.fixtures.shop(merchant.id, { url: receiver.url, secret: 'bench-webhook-secret-0123456789' });
  const target: PaymentTarget = { shopId, receiver, item: sandboxCallbackOf(ctx.sys.env.PROVIDER_SANDBOX_SECRET!) };
  const [first] = (await ctx.fixtures.seedPending(merchant.id, shopId, 1)) as [string];
  const one = target.item(first);
  const res = await fetch(`${ctx.sys.gatewayUrl}${CALLBACK_PATH}`, { method: 'POST', headers: one.headers, body: one.body });
  if (res.status !== 200) throw new Error(`the first callback was answered ${res.status}: ${await res.text()}`);
  await receiver.waitForAll([first], 60_000);
  if (!receiver.firstByLink.has(first)) throw new Error('no webhook arrived for the first payment within 60 s');
  return { merchantId: merchant.id, target };
}

/** The shop's paid links against the ledger: each posted exactly once (a payment transaction), and ledger:verify. */
async function ledgerOfRun(databaseUrl: string, shopId: number) {
  const db = new Db({ url: databaseUrl, schema: 'links', log: createLogger('bench-ledger', 'silent'), max: 1 });
  try {
    const [counts] = await db.query<{ paid: number; posted_once: number; postings: number }>(
      `SELECT (SELECT count(*) FROM payment_links WHERE shop_id = $1 AND status = 'paid')::int AS paid,
              (SELECT count(*) FROM (SELECT payment_link_id FROM ledger_transactions WHERE shop_id = $1 AND type = 'payment'
                                      GROUP BY 1 HAVING count(*) = 1) once
                 JOIN payment_links l ON l.id = once.payment_link_id AND l.status = 'paid')::int AS posted_once,
              (SELECT count(*) FROM ledger_transactions WHERE shop_id = $1 AND type = 'payment')::int AS postings`,
      [shopId],
    );
    return {
      paid: counts?.paid ?? 0,
      postedOnce: counts?.posted_once ?? 0,
      postings: counts?.postings ?? 0,
      verification: await verifyLedger(db),
    };
  } finally {
    await db.close();
  }
}
