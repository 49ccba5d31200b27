import { createHmac } from 'node:crypto';
import { check, cpuMsPerRequest, observe, type BenchContext } from '../context';
import { startLoad } from '../load';
import type { PacedResult, PacedSpec } from '../load-spec';
import { paymentStages } from '../payment-stages';
import { BenchReceiver } from '../receivers';
import { summarize } from '../stats';

const CALLBACK_PATH = '/callbacks/v1/sandbox';
const WARMUP_SECONDS = 2;

/**
 * The payment path: signed sandbox-provider callbacks at a fixed rate (open loop, from the load process),
 * and the merchant's webhook receiver here; per link, webhook received − callback answered.
 */
export async function paymentScenario(ctx: BenchContext): Promise<void> {
  const { settings, fixtures, sys } = ctx;
  const rate = settings.paymentRate;
  ctx.log(`payment path: callbacks at ${rate}/s for ${settings.seconds} s (+${WARMUP_SECONDS} s warm-up) → webhook`);
  const receiver = await BenchReceiver.start();
  try {
    const merchant = await fixtures.merchant();
    const shopId = await fixtures.shop(merchant.id, { url: receiver.url, secret: 'bench-webhook-secret-0123456789' });
    const warm = rate * WARMUP_SECONDS;
    const ids = await fixtures.seedPending(merchant.id, shopId, warm + rate * settings.seconds + 1);
    await fixtures.analyze();
    const secret = sys.env.PROVIDER_SANDBOX_SECRET!;
    const item = (id: string): PacedSpec['items'][number] => {
      const body = JSON.stringify({ gateway_payment_id: `sbx_${id}`, status: 'paid' });
      return {
        key: id,
        method: 'POST',
        path: CALLBACK_PATH,
        headers: { 'content-type': 'application/json', 'x-provider-signature': createHmac('sha256', secret).update(body).digest('hex') },
        body,
      };
    };

    // One payment end to end first: the notifier's consumer has joined its group and the topic exists.
    const [first, ...rest] = ids as [string, ...string[]];
    const one = item(first);
    const res = await fetch(`${sys.gatewayUrl}${CALLBACK_PATH}`, { method: 'POST', headers: one.headers, body: one.body });
    if (res.status !== 200) throw new Error(`the first callback was answered ${res.status}: ${await res.text()}`);
    await receiver.waitForAll([first], 60_000);
    if (!receiver.firstByLink.has(first)) throw new Error('no webhook arrived for the first payment within 60 s');

    // BENCH_STAGES=1: keep every span of the run and time each hop (parsing them costs the bench some CPU).
    const stagesWanted = process.env.BENCH_STAGES === '1';
    const load = startLoad({ mode: 'paced', url: sys.gatewayUrl, rate, maxSockets: settings.connections, items: rest.map(item) }, ctx.workDir);
    await load.measuring;
    if (stagesWanted) ctx.sink.startRecording();
    const watch = await observe(ctx, load.pid);
    let result: PacedResult;
    try {
      result = await load.result;
    } catch (e) {
      await watch.stop();
      throw e;
    }
    // Items come in the order sent: the first `warm` are the warm-up.
    const measured = result.items.filter((_, i) => i >= warm);
    const accepted = measured.filter((r) => r.status === 200);
    await receiver.waitForAll(
      accepted.map((r) => r.key),
      30_000,
    );
    const { cpu, pg } = await watch.stop();
    // Spans leave the services in batches (every 5 s at the latest); wait for the last ones before timing.
    if (stagesWanted) await new Promise((r) => setTimeout(r, 6000));
    const stages = stagesWanted ? paymentStages(ctx.sink.stopRecording()) : null;

    const callback = summarize(accepted.map((r) => r.answeredAt - r.sentAt));
    const endToEnd = accepted.filter((r) => receiver.firstByLink.has(r.key)).map((r) => receiver.firstByLink.get(r.key)! - r.answeredAt);
    const e2e = summarize(endToEnd);
    const missing = accepted.length - endToEnd.length;
    const sentSpan = ((measured[measured.length - 1]?.sentAt ?? 0) - (measured[0]?.sentAt ?? 0)) / 1000;
    const achieved = Math.round((measured.length / Math.max(sentSpan, 1e-3)) * 10) / 10;
    ctx.rows.push({
      scenario: `payment: provider callback at ${rate}/s`,
      target: 'system',
      rps: achieved,
      p50: callback.p50,
      p99: callback.p99,
      errors: measured.length - accepted.length,
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
      `    callbacks ${achieved}/s (send lag max ${result.maxSendLagMs} ms), answered p50 ${callback.p50} / p99 ${callback.p99} ms; ` +
        `→ webhook p50 ${e2e.p50} / p90 ${e2e.p90} / p99 ${e2e.p99} / max ${e2e.max} ms; missing ${missing}`,
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
      rejected: measured.length - accepted.length,
      maxSendLagMs: result.maxSendLagMs,
      cpu,
      postgresActivity: pg,
      stages,
    };
    check(
      ctx,
      `payment path p99 ≤ 100 ms (callback accepted → webhook received) at ${rate}/s`,
      `p99 ${e2e.p99} ms (p50 ${e2e.p50}, max ${e2e.max}), ${missing} missing`,
      e2e.p99 <= 100 && missing === 0 && accepted.length === measured.length,
    );
  } finally {
    await receiver.close();
  }
}
