import { apiRequest, check, measureClosed, type BenchContext } from '../context';
import { summarize } from '../stats';
import { createBody, LINKS_PATH } from './links-api';

/** Creates measured before the links fall due: the baseline of the same run. */
const BASELINE_SECONDS = 8;
/** The sweeper wakes every EXPIRY_SWEEP_INTERVAL_MS (5 s by default): the sweep starts up to that long after. */
const LONGEST_SECONDS = 90;

/**
 * The expiry sweep under load: `dueLinks` pending links (another merchant's) all fall due at one instant
 * while creates run through the gateway; the links service's own sweeper expires them. Measures the sweep
 * (first batch → none left) and the creates' p99 during it against the seconds before.
 */
export async function expiryScenario(ctx: BenchContext): Promise<void> {
  const { settings, fixtures, sys, writer } = ctx;
  const n = settings.dueLinks;
  ctx.log(`expiry: ${n.toLocaleString('en')} links fall due during a create load`);
  const owner = await fixtures.merchant();
  const shopId = await fixtures.shop(owner.id);
  // Due far enough ahead for the seeding, the warm-up and the baseline; the load starts so that they line up.
  const dueAt = Date.now() + 30_000 + Math.ceil(n / 10_000) * 1000;
  const seedStart = Date.now();
  const chunk = 20_000;
  for (let done = 0; done < n; done += chunk) await fixtures.seedDue(owner.id, shopId, Math.min(chunk, n - done), new Date(dueAt));
  await fixtures.analyze();
  ctx.log(`    seeded in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
  const loadStartAt = dueAt - (BASELINE_SECONDS + settings.warmupSeconds + 1.5) * 1000;
  if (Date.now() < loadStartAt) await new Promise((r) => setTimeout(r, loadStartAt - Date.now()));

  const stillDue = async (): Promise<boolean> =>
    (
      await fixtures.sql<{ due: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM links.payment_links WHERE status = 'pending' AND expires_at <= now() AND merchant_id = $1) AS due`,
        [owner.id],
      )
    )[0]?.due === true;
  const sweep: { noneLeftAt: number | null } = { noneLeftAt: null };
  const run = await measureClosed(
    ctx,
    'create during expiry sweep',
    'gateway',
    sys.gatewayUrl,
    apiRequest('POST', LINKS_PATH, writer.merchant, { body: createBody(writer.shopId) }),
    {
      seconds: LONGEST_SECONDS,
      stoppable: true,
      timeline: true,
      note: `${n.toLocaleString('en')} links due`,
      duringMeasure: async (stop) => {
        while (Date.now() < dueAt + 500) await new Promise((r) => setTimeout(r, 100));
        const deadline = dueAt + (LONGEST_SECONDS - BASELINE_SECONDS - 5) * 1000;
        while (Date.now() < deadline) {
          if (!(await stillDue())) {
            sweep.noneLeftAt = Date.now();
            break;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
        // A little of the load after the sweep, then stop.
        await new Promise((r) => setTimeout(r, 2000));
        stop();
      },
    },
  );
  const noneLeftAt = sweep.noneLeftAt;
  const [stats] = await fixtures.sql<{ expired: string; left: string; first: Date | null; last: Date | null }>(
    `SELECT count(*) FILTER (WHERE status = 'expired') AS expired, count(*) FILTER (WHERE status = 'pending') AS left,
            min(updated_at) FILTER (WHERE status = 'expired') AS first, max(updated_at) FILTER (WHERE status = 'expired') AS last
       FROM links.payment_links WHERE merchant_id = $1`,
    [owner.id],
  );
  // Each expired link wrote its `payment_link.expired` with its move, once: the outbox's record says so.
  const [events] = await fixtures.sql<{ links: string; wrong: string }>(
    `SELECT count(*) AS links, count(*) FILTER (WHERE COALESCE(e.n, 0) <> 1) AS wrong
       FROM links.payment_links l
       LEFT JOIN (SELECT message_key, count(*) AS n FROM links.outbox WHERE payload->>'event' = 'payment_link.expired' GROUP BY message_key) e
         ON e.message_key = l.id::text
      WHERE l.merchant_id = $1 AND l.status = 'expired'`,
    [owner.id],
  );
  const firstAt = stats?.first?.getTime() ?? null;
  const sweepSeconds = noneLeftAt !== null && firstAt !== null ? (noneLeftAt - firstAt) / 1000 : null;
  const timeline = run.result.timeline ?? [];
  const windowP = (from: number, to: number) => summarize(timeline.filter(([t]) => t >= from && t < to).map(([, l]) => l));
  const before = windowP(run.startedAt, dueAt);
  const during = firstAt !== null ? windowP(firstAt, noneLeftAt ?? Date.now()) : null;
  const p99Ratio = during && before.p99 ? during.p99 / before.p99 : NaN;
  const rps = (from: number, to: number): number =>
    Math.round((timeline.filter(([t]) => t >= from && t < to).length / ((to - from) / 1000)) * 10) / 10;
  ctx.rows.push({
    scenario: 'create before the sweep',
    target: 'gateway',
    rps: rps(run.startedAt, dueAt),
    p50: before.p50,
    p99: before.p99,
    errors: null,
    cpu: null,
    note: `${((dueAt - run.startedAt) / 1000).toFixed(1)} s`,
  });
  ctx.rows.push({
    ...run.row,
    scenario: 'create during the expiry sweep',
    rps: during && firstAt !== null ? rps(firstAt, noneLeftAt ?? Date.now()) : null,
    p50: during?.p50 ?? null,
    p99: during?.p99 ?? null,
    cpuMsPerRequest: null,
    reference: { rps: null, p99: before.p99 },
    note: `sweep ${sweepSeconds?.toFixed(1) ?? '–'} s; ratio is to the creates before it; errors and CPU over the whole run`,
  });
  const sweepText =
    sweepSeconds === null
      ? `not finished: ${stats?.left} of ${n} still pending after ${LONGEST_SECONDS} s`
      : `${Number(stats?.expired).toLocaleString('en')} expired in ${sweepSeconds.toFixed(1)} s (first batch ${firstAt !== null ? ((firstAt - dueAt) / 1000).toFixed(1) : '–'} s after they fell due)`;
  ctx.log(`    sweep: ${sweepText}; create p99 before ${before.p99} ms, during ${during?.p99 ?? '–'} ms (${during?.count ?? 0} creates)`);
  ctx.details.expiry = {
    dueLinks: n,
    sweepSeconds,
    firstBatchAfterDueMs: firstAt !== null ? firstAt - dueAt : null,
    expired: Number(stats?.expired),
    left: Number(stats?.left),
    before,
    during,
    errors: run.row.errors,
    cpu: run.cpu,
    expiredWithoutOneEvent: Number(events?.wrong),
  };
  check(ctx, `expiry: ${n.toLocaleString('en')} due links swept in ≤ 10 s`, sweepText, sweepSeconds !== null && sweepSeconds <= 10);
  check(
    ctx,
    'expiry: every expired link with exactly one payment_link.expired event',
    `${Number(events?.links).toLocaleString('en')} expired links, ${Number(events?.wrong).toLocaleString('en')} without exactly one event`,
    Number(events?.links) > 0 && Number(events?.wrong) === 0,
  );
  check(
    ctx,
    'expiry: create p99 during the sweep ≤ 1.5 × without',
    `${during?.p99 ?? '–'} vs ${before.p99} ms = ${p99Ratio.toFixed(2)}×, ${run.row.errors} errors`,
    during !== null && p99Ratio <= 1.5 && run.row.errors === 0,
  );
}
