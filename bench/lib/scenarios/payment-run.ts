import { createHmac } from 'node:crypto';
import { observe, type BenchContext } from '../context';
import type { CpuWindow } from '../cpu';
import { startLoad } from '../load';
import type { PacedResult, PacedSpec } from '../load-spec';
import type { BenchReceiver } from '../receivers';
import { summarize, type LatencySummary } from '../stats';

export const CALLBACK_PATH = '/callbacks/v1/sandbox';

/** A shop whose receiver is the bench's, and the sandbox's callback for any of its pending links. */
export interface PaymentTarget {
  shopId: number;
  receiver: BenchReceiver;
  /** The signed callback that pays link `id`. */
  item: (id: string) => PacedSpec['items'][number];
}

export function sandboxCallbackOf(secret: string): PaymentTarget['item'] {
  return (id) => {
    const body = JSON.stringify({ gateway_payment_id: `sbx_${id}`, status: 'paid' });
    return {
      key: id,
      method: 'POST',
      path: CALLBACK_PATH,
      headers: { 'content-type': 'application/json', 'x-provider-signature': createHmac('sha256', secret).update(body).digest('hex') },
      body,
    };
  };
}

/** What one paced run of payments measured: the callback's answer and the path to the merchant's webhook. */
export interface PaymentRun {
  achieved: number;
  /** Callbacks sent after the warm-up; `accepted` of them answered 200. */
  measured: number;
  accepted: number;
  callback: LatencySummary;
  endToEnd: LatencySummary;
  /** Accepted callbacks whose webhook had not arrived within the wait. */
  missing: number;
  maxSendLagMs: number;
  cpu: CpuWindow;
  pg: string[];
}

/**
 * Pays `warmupSeconds + seconds` worth of the shop's fresh pending links at `rate` callbacks a second (open loop,
 * from the load process), then waits up to `waitMs` for every accepted payment's webhook. `during` runs while the
 * load is measured (the stages recording starts there).
 */
export async function paymentsAt(
  ctx: BenchContext,
  target: PaymentTarget,
  merchantId: string,
  run: { rate: number; seconds: number; warmupSeconds: number; waitMs: number; onMeasuring?: () => void },
): Promise<PaymentRun> {
  const { rate, seconds, warmupSeconds, waitMs } = run;
  const warm = rate * warmupSeconds;
  const ids = await ctx.fixtures.seedPending(merchantId, target.shopId, warm + rate * seconds);
  await ctx.fixtures.analyze();
  const load = startLoad(
    { mode: 'paced', url: ctx.sys.gatewayUrl, rate, maxSockets: ctx.settings.connections, items: ids.map(target.item) },
    ctx.workDir,
  );
  await load.measuring;
  run.onMeasuring?.();
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
  await target.receiver.waitForAll(
    accepted.map((r) => r.key),
    waitMs,
  );
  const { cpu, pg } = await watch.stop();
  const arrived = accepted.filter((r) => target.receiver.firstByLink.has(r.key));
  const sentSpan = ((measured[measured.length - 1]?.sentAt ?? 0) - (measured[0]?.sentAt ?? 0)) / 1000;
  return {
    achieved: Math.round((measured.length / Math.max(sentSpan, 1e-3)) * 10) / 10,
    measured: measured.length,
    accepted: accepted.length,
    callback: summarize(accepted.map((r) => r.answeredAt - r.sentAt)),
    endToEnd: summarize(arrived.map((r) => target.receiver.firstByLink.get(r.key)! - r.answeredAt)),
    missing: accepted.length - arrived.length,
    maxSendLagMs: result.maxSendLagMs,
    cpu,
    pg,
  };
}
