import { observe, type BenchContext } from './context';
import type { CpuWindow } from './cpu';
import { startLoad } from './load';
import type { PacedResult, PacedSpec } from './load-spec';

/** What one open-loop run measured: the requests after the warm-up, the rate they went at, the CPU and Postgres meanwhile. */
export interface PacedRun {
  /** In the order sent, the warm-up's left out. */
  measured: PacedResult['items'];
  /** Requests per second actually sent over the measured part. */
  achieved: number;
  maxSendLagMs: number;
  cpu: CpuWindow;
  pg: string[];
}

/**
 * Sends `items` at `rate` a second from the load process (open loop); the first `warmItems` are the warm-up. CPU and
 * Postgres are watched from the end of the warm-up until the load is done and `settle` (given the measured requests:
 * waiting for what they cause, webhooks say) has finished, so the window holds the work the requests made.
 */
export async function pacedRun(
  ctx: BenchContext,
  items: PacedSpec['items'],
  rate: number,
  warmItems: number,
  options: { onMeasuring?: () => void; settle?: (measured: PacedResult['items']) => Promise<void> } = {},
): Promise<PacedRun> {
  const load = startLoad({ mode: 'paced', url: ctx.sys.gatewayUrl, rate, maxSockets: ctx.settings.connections, items }, ctx.workDir);
  await load.measuring;
  options.onMeasuring?.();
  const watch = await observe(ctx, load.pid);
  let measured: PacedResult['items'];
  let maxSendLagMs: number;
  try {
    const result = await load.result;
    measured = result.items.filter((_, i) => i >= warmItems);
    maxSendLagMs = result.maxSendLagMs;
    await options.settle?.(measured);
  } catch (e) {
    await watch.stop();
    throw e;
  }
  const { cpu, pg } = await watch.stop();
  const sentSpan = ((measured[measured.length - 1]?.sentAt ?? 0) - (measured[0]?.sentAt ?? 0)) / 1000;
  return { measured, achieved: Math.round((measured.length / Math.max(sentSpan, 1e-3)) * 10) / 10, maxSendLagMs, cpu, pg };
}
