import { join } from 'node:path';
import { createEventPublisher, type EventMessage } from '@pl/bus';
import { createLogger } from '@pl/telemetry';
import { check, cpuMsPerRequest, observe, type BenchContext } from '../context';
import { rssMiB } from '../cpu';
import { paymentSucceededMessage } from '../payment-event';
import { BenchReceiver } from '../receivers';
import { RetainedHeap } from '../retained-heap';
import { slope, wallNow } from '../stats';
import { ROOT } from '../system';

/** The notifier's concurrency bounds in effect: its own config module (from dist/, as it runs) over the bench's environment. */
function concurrencyInEffect(env: Record<string, string>): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the built module the process runs, not the source
    const { loadConfig } = require(join(ROOT, 'services', 'notifier', 'dist', 'config.js')) as {
      loadConfig: (e: NodeJS.ProcessEnv) => Record<string, unknown>;
    };
    const c = loadConfig(env);
    return `WEBHOOK_CONCURRENCY=${String(c.WEBHOOK_CONCURRENCY)}, WEBHOOK_PER_ENDPOINT_CONCURRENCY=${String(c.WEBHOOK_PER_ENDPOINT_CONCURRENCY)} (production defaults)`;
  } catch {
    return 'WEBHOOK_CONCURRENCY and WEBHOOK_PER_ENDPOINT_CONCURRENCY at their production defaults';
  }
}

/**
 * Webhook throughput to slow merchants: `notifierEndpoints` shops whose receivers answer after
 * `slowReceiverMs`, and `payment.succeeded` events published straight to the payment-events topic at
 * `notifierRate`/s for `notifierSeconds` (exactly what the links outbox relay publishes, checked by the same
 * contract; publishing them here keeps the links service and the gateway off the two cores). Measures
 * deliveries per second at the receivers and the notifier's memory over the run: "flat" when the heap it
 * retains after full collections (median of the last minute) is within 10 % of that in the second minute;
 * RSS is reported beside it.
 */
export async function notifierScenario(ctx: BenchContext): Promise<void> {
  const { settings, fixtures, sys } = ctx;
  const seconds = settings.notifierSeconds;
  const concurrency = concurrencyInEffect(sys.env);
  ctx.log(
    `notifier: ${settings.notifierRate} events/s for ${seconds} s to ${settings.notifierEndpoints} endpoints answering after ${settings.slowReceiverMs} ms (${concurrency})`,
  );
  const receiver = await BenchReceiver.start(settings.slowReceiverMs);
  const publisher = createEventPublisher({ brokers: sys.kafkaBrokers.split(','), clientId: 'bench', log: createLogger('bench', 'warn') });
  try {
    const merchant = await fixtures.merchant();
    const shops: number[] = [];
    for (let i = 0; i < settings.notifierEndpoints; i++) {
      shops.push(await fixtures.shop(merchant.id, { url: `${receiver.url}/${i}`, secret: `bench-webhook-secret-${i}-0123456789` }));
    }
    const topic = sys.env.PAYMENT_EVENTS_TOPIC!;
    let published = 0;
    const message = (): EventMessage => paymentSucceededMessage(merchant.id, shops, published++).message;

    const rss: [number, number][] = [];
    const watch = await observe(ctx);
    const retained = new RetainedHeap(`http://127.0.0.1:${sys.opsPorts.notifier}/metrics`);
    const start = wallNow();
    const sampler = setInterval(() => {
      const v = rssMiB(sys.services.notifier.pid);
      if (v !== null) rss.push([(wallNow() - start) / 1000, v]);
    }, 1000);
    const stopSampling = (): ReturnType<typeof watch.stop> => {
      clearInterval(sampler);
      retained.stop();
      return watch.stop();
    };
    // Paced in 100 ms steps; a step that fell behind catches up in the next.
    let lagged = 0;
    try {
      while (wallNow() - start < seconds * 1000) {
        const due = Math.floor(((wallNow() - start) / 1000) * settings.notifierRate);
        const batch = Array.from({ length: Math.max(0, due - published) }, message);
        if (batch.length > 0) await publisher.publish(topic, batch);
        const next = start + (Math.floor((wallNow() - start) / 100) + 1) * 100;
        const wait = next - wallNow();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        else lagged += 1;
      }
    } catch (e) {
      // The next scenario must not run beside this one's samplers.
      await stopSampling();
      throw e;
    }
    const end = wallNow();
    const { cpu, pg } = await stopSampling();
    ctx.log(`    postgres: ${pg.slice(0, 4).join(' | ')}`);

    // Steady state: after the first 10 s (a third of a short run), when every slot has filled.
    const from = start + Math.min(10_000, (seconds * 1000) / 3);
    const delivered = Math.round(receiver.rate(from, end) * 10) / 10;
    const half = rss.filter(([t]) => t >= seconds / 2);
    const slopePerMin = slope(half) * 60;
    // The second minute (every slot long filled) against the last.
    const heapEarly = retained.medianMiB(60, 120);
    const heapLate = retained.medianMiB(seconds - 60, seconds);
    const growth = heapLate / heapEarly - 1;
    const sign = (x: number): string => (x >= 0 ? '+' : '');
    const heapText = (digits: number): string =>
      Number.isNaN(heapEarly)
        ? `${heapLate.toFixed(digits)} MiB in the last minute (no second minute to compare in a run this short)`
        : `${heapEarly.toFixed(digits)} MiB in minute 2, ${heapLate.toFixed(digits)} MiB in the last (${sign(growth)}${(growth * 100).toFixed(0)} %)`;
    const rssAt = (t: number): number => rss.find(([s]) => s >= t)?.[1] ?? NaN;
    const first = rssAt(from / 1000 - start / 1000);
    const last = rss[rss.length - 1]?.[1] ?? NaN;
    const peak = Math.max(...rss.map(([, v]) => v));
    ctx.rows.push({
      scenario: `notifier: ${settings.notifierEndpoints} endpoints × ${settings.slowReceiverMs} ms`,
      target: 'system',
      rps: delivered,
      p50: null,
      p99: null,
      errors: null,
      cpu,
      cpuMsPerRequest: cpuMsPerRequest(cpu, delivered, 'system'),
      note: `deliveries/s; ${published} events at ${settings.notifierRate}/s, peak ${receiver.peakInFlight} in flight, RSS ${first.toFixed(0)}→${last.toFixed(0)} MiB`,
    });
    ctx.log(
      `    delivered ${delivered}/s in steady state (${receiver.arrivals.length} of ${published} published; peak ${receiver.peakInFlight} in flight${lagged ? `; publisher fell behind ${lagged}×` : ''}); ` +
        `RSS ${first.toFixed(1)} → ${last.toFixed(1)} MiB (peak ${peak.toFixed(1)}), second-half slope ${slopePerMin.toFixed(2)} MiB/min; ` +
        `heap retained after full GCs ${heapText(1)} (medians)`,
    );
    ctx.details.notifier = {
      concurrency,
      seconds,
      rate: settings.notifierRate,
      endpoints: settings.notifierEndpoints,
      slowReceiverMs: settings.slowReceiverMs,
      published,
      received: receiver.arrivals.length,
      deliveriesPerSecond: delivered,
      peakInFlight: receiver.peakInFlight,
      rss,
      rssSlopeMiBPerMin: slopePerMin,
      retainedHeapMiB: retained.samples,
      retainedHeapMedianMiB: { secondMinute: heapEarly, lastMinute: heapLate },
      cpu,
      postgresActivity: pg,
    };
    check(ctx, `notifier ≥ 500 deliveries/s to 1 s receivers`, `${delivered}/s (peak ${receiver.peakInFlight} in flight)`, delivered >= 500);
    // Judged on the 5-minute run only: a minute holds a few GC cycles at most.
    check(
      ctx,
      `notifier memory flat over ${seconds} s${seconds >= 300 ? '' : ' (judged from 300 s: BENCH_NOTIFIER_SECONDS)'}`,
      `heap retained ${heapText(0)}; ` +
        `RSS ${first.toFixed(0)} → ${last.toFixed(0)} MiB, peak ${peak.toFixed(0)}, second half ${sign(slopePerMin)}${slopePerMin.toFixed(2)} MiB/min`,
      seconds >= 300 ? Number.isFinite(growth) && growth <= 0.1 : null,
    );
  } finally {
    await publisher.close();
    await receiver.close();
  }
}
