import { createHmac } from 'node:crypto';
import type { BenchContext } from '../context';
import type { CpuWindow } from '../cpu';
import type { PacedSpec } from '../load-spec';
import { pacedRun } from '../paced-run';
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
 * from the load process), then waits up to `waitMs` for every accepted payment's webhook.
 */
export async function paymentsAt(
  ctx: BenchContext,
  target: PaymentTarget,
  merchantId: string,
  run: { rate: number; seconds: number; warmupSeconds: number; waitMs: number; onMeasuring?: () => void },
): Promise<PaymentRun> {
  const warm = run.rate * run.warmupSeconds;
  const ids = await ctx.fixtures.seedPending(merchantId, target.shopId, warm + run.rate * run.seconds);
  await ctx.fixtures.analyze();
  return deliveredPayments(ctx, target.receiver, ids.map(target.item), { ...run, warmItems: warm });
}

/**
 * Sends payment callbacks (`items`, each keyed by its link) at `rate` a second, then waits up to `waitMs` for every
 * accepted one's webhook at `receiver`: the callback's answer and callback answered → webhook received, per link.
 */
export async function deliveredPayments(
  ctx: BenchContext,
  receiver: BenchReceiver,
  items: PacedSpec['items'],
  run: { rate: number; warmItems: number; waitMs: number; onMeasuring?: () => void },
): Promise<PaymentRun> {
  const paced = await pacedRun(ctx, items, run.rate, run.warmItems, {
    onMeasuring: run.onMeasuring,
    settle: (measured) =>
      receiver.waitForAll(
        measured.filter((r) => r.status === 200).map((r) => r.key),
        run.waitMs,
      ),
  });
  const accepted = paced.measured.filter((r) => r.status === 200);
  const arrived = accepted.filter((r) => receiver.firstByLink.has(r.key));
  return {
    achieved: paced.achieved,
    measured: paced.measured.length,
    accepted: accepted.length,
    callback: summarize(accepted.map((r) => r.answeredAt - r.sentAt)),
    endToEnd: summarize(arrived.map((r) => receiver.firstByLink.get(r.key)! - r.answeredAt)),
    missing: accepted.length - arrived.length,
    maxSendLagMs: paced.maxSendLagMs,
    cpu: paced.cpu,
    pg: paced.pg,
  };
}
