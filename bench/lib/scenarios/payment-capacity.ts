import { check, cpuMsPerRequest, type BenchContext } from '../context';
import { BenchReceiver } from '../receivers';
import { paymentShop } from './payment';
import { paymentsAt, type PaymentRun } from './payment-run';

/** The path's bound: a merchant's webhook within 100 ms of the provider's callback, at p99 (issue 36). */
const P99_BOUND_MS = 100;
const STEP_WARMUP_SECONDS = 2;
/** How long a step's last webhooks may take to arrive before they count as missing (the path is far quicker). */
const STEP_WAIT_MS = 10_000;
/** The coarse steps climb by this much; one step halfway back then narrows the edge. */
const STEP_RPS = 100;
/** Far past what two cores hold; the climb ends at the first step that fails anyway. */
const MAX_RPS = 2000;

interface Step {
  rate: number;
  run: PaymentRun;
  held: boolean;
}

/**
 * The highest payment rate this machine holds with the path's p99 within 100 ms: paced callbacks at
 * BENCH_PAYMENT_RATE, then 100/s more each step (BENCH_CAPACITY_SECONDS each, after a 2 s warm-up) until a step
 * misses (p99 over 100 ms, a callback refused, a webhook missing, or the load process unable to send at the rate),
 * then once halfway back. Printed, not judged: it says what one machine of this size is worth (docs/capacity.md).
 */
export async function paymentCapacityScenario(ctx: BenchContext): Promise<void> {
  const { settings } = ctx;
  ctx.log(
    `payment capacity: callbacks from ${settings.paymentRate}/s up by ${STEP_RPS}/s, ${settings.capacitySeconds} s a step, until p99 > ${P99_BOUND_MS} ms`,
  );
  const receiver = await BenchReceiver.start();
  try {
    const { merchantId, target } = await paymentShop(ctx, receiver);
    const steps: Step[] = [];
    const stepAt = async (rate: number): Promise<Step> => {
      const run = await paymentsAt(ctx, target, merchantId, {
        rate,
        seconds: settings.capacitySeconds,
        warmupSeconds: STEP_WARMUP_SECONDS,
        waitMs: STEP_WAIT_MS,
      });
      const held = run.endToEnd.p99 <= P99_BOUND_MS && run.missing === 0 && run.accepted === run.measured && run.achieved >= rate * 0.95;
      const step = { rate, run, held };
      steps.push(step);
      ctx.log(
        `    ${rate}/s: sent ${run.achieved}/s, → webhook p50 ${run.endToEnd.p50} / p99 ${run.endToEnd.p99} ms, ` +
          `refused ${run.measured - run.accepted}, missing ${run.missing}, ${cpuMsPerRequest(run.cpu, run.achieved, 'system')} CPU ms a payment: ` +
          (held ? 'held' : 'missed'),
      );
      return step;
    };

    let lastHeld: number | null = null;
    let firstMissed: number | null = null;
    for (let rate = settings.paymentRate; rate <= MAX_RPS; rate += STEP_RPS) {
      if ((await stepAt(rate)).held) lastHeld = rate;
      else {
        firstMissed = rate;
        break;
      }
    }
    if (lastHeld !== null && firstMissed !== null && firstMissed - lastHeld > 1) {
      const middle = Math.round((lastHeld + firstMissed) / 2);
      if ((await stepAt(middle)).held) lastHeld = middle;
      else firstMissed = middle;
    }

    for (const { rate, run } of steps) {
      ctx.rows.push({
        scenario: `payment capacity: callbacks at ${rate}/s → webhook received`,
        target: 'system',
        rps: run.achieved,
        p50: run.endToEnd.p50,
        p99: run.endToEnd.p99,
        errors: run.measured - run.accepted + run.missing,
        cpu: run.cpu,
        cpuMsPerRequest: cpuMsPerRequest(run.cpu, run.achieved, 'system'),
        note: `${settings.capacitySeconds} s; errors = refused + webhooks missing after ${STEP_WAIT_MS / 1000} s`,
      });
    }
    ctx.details.paymentCapacity = { lastHeld, firstMissed, steps: steps.map(({ rate, run, held }) => ({ rate, held, ...run })) };
    const missedAt = steps.find((s) => s.rate === firstMissed)?.run;
    check(
      ctx,
      `the highest payment rate with the path's p99 ≤ ${P99_BOUND_MS} ms (measured and printed, not judged)`,
      lastHeld === null
        ? `none: ${settings.paymentRate}/s already missed`
        : `${lastHeld}/s` +
            (missedAt
              ? ` (${firstMissed}/s missed: p99 ${missedAt.endToEnd.p99} ms, ${missedAt.missing} missing)`
              : ` (every step to ${MAX_RPS}/s held)`),
      null,
    );
  } finally {
    await receiver.close();
  }
}
