import type { BenchContext } from '../context';
import type { Row } from '../report';
import { getScenario, listScaleChecks, listScenario } from './links-api';

/** The reader's history, as seeded: newest first, 30 s apart, the newest 100 pending. */
export const HISTORY = { stepMs: 30_000, pendingNewest: 100 };

/** The deep page: 90 % of the way down the history. */
export const deepPosition = (links: number): number => Math.floor(links * 0.9);

/**
 * The reader's history grown to `scaleLinks` (older links appended in bulk), vacuumed and checkpointed as a
 * table that grew gradually would be, then the same list and get runs as with the small history.
 */
export async function scaleScenario(ctx: BenchContext, small: { first: Row; deep: Row }, newest: Date): Promise<void> {
  const { settings, fixtures, reader } = ctx;
  const total = settings.scaleLinks;
  ctx.log(`scale: the reader's history grows from ${settings.smallLinks.toLocaleString('en')} to ${total.toLocaleString('en')} links`);
  const started = Date.now();
  const chunk = 100_000;
  for (let from = settings.smallLinks; from < total; from += chunk) {
    await fixtures.seedHistory({
      merchantId: reader.merchant.id,
      shopId: reader.shopId,
      from,
      count: Math.min(chunk, total - from),
      newest,
      ...HISTORY,
    });
  }
  await fixtures.settleAfterBulkLoad();
  ctx.log(`    seeded, vacuumed and checkpointed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const label = `(${total.toLocaleString('en')} links)`;
  const large = await listScenario(ctx, label, await fixtures.cursorAt(reader.merchant.id, deepPosition(total)));
  await getScenario(ctx, label, await fixtures.sampleIds(reader.merchant.id, 10_000));
  listScaleChecks(ctx, small, large, settings.smallLinks, total);
  ctx.details.scale = { links: total, seedSeconds: (Date.now() - started) / 1000 };
}
