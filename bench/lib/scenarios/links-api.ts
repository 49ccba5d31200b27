import { apiRequest, check, measureAgainstReferences, type BenchContext, type Comparison, type Side } from '../context';
import type { Row } from '../report';

export const LINKS_PATH = '/merchant/v1/payment-links';
/** The create body of both the gateway and the reference (no Idempotency-Key: the plain create). */
export const createBody = (shopId: number): string =>
  JSON.stringify({ shop_id: shopId, amount: '1500.00', order_id: 'bench-order', description: 'Bench' });

const ratio = (a: number | null, b: number | null): number => (a !== null && b ? a / b : NaN);

/** Flags a comparison made while other people's work took a large share of the two cores. */
const noise = (...rows: Row[]): string => {
  const others = Math.max(...rows.map((r) => r.cpu?.outside ?? 0));
  return others > 50 ? ` (noisy: others used ${Math.round(others)}% of a core)` : '';
};
const x = (n: number): string => `${n.toFixed(2)}×`;

const cpuRatio = (gateway: Row, reference: Row): string =>
  gateway.cpuMsPerRequest && reference.cpuMsPerRequest ? `; CPU/req ${(gateway.cpuMsPerRequest / reference.cpuMsPerRequest).toFixed(2)}×` : '';

/**
 * Targets are judged against the reference on every core: that is the monolith a user would run (node's
 * cluster), while the single process can use one of the two cores, so beating it says little. Its ratio is
 * quoted for information.
 */
const againstOneProcess = (r: Comparison, figure: 'rps' | 'p99'): string =>
  ` (1 process: ${x(ratio(r.gateway[figure], r.reference[figure]))}${figure === 'rps' ? cpuRatio(r.gateway, r.reference) : ''})`;

/** req/s against the every-core reference, judged at `factor` and more. */
function checkRps(ctx: BenchContext, name: string, r: Comparison, factor: number): void {
  const rps = ratio(r.gateway.rps, r.referenceCluster.rps);
  check(
    ctx,
    `${name} req/s ≥ ${factor} × every-core reference`,
    `${r.gateway.rps} vs ${r.referenceCluster.rps} req/s = ${x(rps)}${cpuRatio(r.gateway, r.referenceCluster)}` +
      `${againstOneProcess(r, 'rps')}${noise(r.gateway, r.reference, r.referenceCluster)}`,
    rps >= factor,
  );
}

/** p99 against the every-core reference's, judged at `factor` and less. */
function checkP99(ctx: BenchContext, name: string, r: Comparison, factor: number): void {
  const p99 = ratio(r.gateway.p99, r.referenceCluster.p99);
  check(
    ctx,
    `${name} p99 ≤ ${factor.toFixed(1)} × every-core reference p99`,
    `${r.gateway.p99} vs ${r.referenceCluster.p99} ms = ${x(p99)}` +
      `${againstOneProcess(r, 'p99')}${noise(r.gateway, r.reference, r.referenceCluster)}`,
    p99 <= factor,
  );
}

/** Route 1: create with API keys, 50 connections. */
export async function createScenario(ctx: BenchContext): Promise<Comparison> {
  ctx.log('create (route 1)');
  const body = createBody(ctx.writer.shopId);
  const r = await measureAgainstReferences(ctx, 'create', () => apiRequest('POST', LINKS_PATH, ctx.writer.merchant, { body }));
  checkRps(ctx, 'create', r, 1.5);
  checkP99(ctx, 'create', r, 0.8);
  check(ctx, 'create: zero errors at 50 connections', `${r.gateway.errors} errors`, r.gateway.errors === 0);
  const cpuMs = (row: Row): number | null => row.cpuMsPerRequest ?? null;
  const cpu = ratio(cpuMs(r.gateway), cpuMs(r.referenceCluster));
  check(
    ctx,
    'create CPU ms/req ≤ every-core reference',
    `${cpuMs(r.gateway) ?? '–'} vs ${cpuMs(r.referenceCluster) ?? '–'} ms = ${x(cpu)} (1 process: ${x(ratio(cpuMs(r.gateway), cpuMs(r.reference)))})` +
      noise(r.gateway, r.reference, r.referenceCluster),
    cpu <= 1,
  );
  return r;
}

/** Route 6: one link by id, random ids of the reader's history. */
export async function getScenario(ctx: BenchContext, label: string, ids: string[]): Promise<Comparison> {
  const paths = ids.map((id) => `${LINKS_PATH}/${id}`);
  const r = await measureAgainstReferences(ctx, `get ${label}`, () => apiRequest('GET', LINKS_PATH, ctx.reader.merchant, { paths, pick: 'random' }));
  checkRps(ctx, `get ${label}`, r, 1.5);
  checkP99(ctx, `get ${label}`, r, 1.0);
  return r;
}

/** Route 7: the first page, and a page deep down (by cursor), of the reader's links. */
export async function listScenario(ctx: BenchContext, label: string, deepCursor: string): Promise<{ first: Row; deep: Row }> {
  const first = await measureAgainstReferences(ctx, `list first page ${label}`, () =>
    apiRequest('GET', `${LINKS_PATH}?limit=20`, ctx.reader.merchant),
  );
  const deep = await measureAgainstReferences(ctx, `list deep page ${label}`, () =>
    apiRequest('GET', `${LINKS_PATH}?limit=20&cursor=${deepCursor}`, ctx.reader.merchant),
  );
  checkRps(ctx, `list first page ${label}`, first, 1.2);
  checkP99(ctx, `list first page ${label}`, first, 1.0);
  checkRps(ctx, `list deep page ${label}`, deep, 1.2);
  return { first: first.gateway, deep: deep.gateway };
}

/** Route 4: every request cancels a different pending link (a pool seeded apart for each side). */
export async function cancelScenario(ctx: BenchContext): Promise<void> {
  ctx.log('cancel (route 4)');
  const { settings, fixtures, writer } = ctx;
  // Enough for 2,500 cancels/s through warm-up and measurement; a pool that runs dry is reported.
  const poolSize = Math.ceil((settings.seconds + settings.warmupSeconds + settings.rounds) * 2500);
  const cancelPaths = async (): Promise<string[]> =>
    (await fixtures.seedPending(writer.merchant.id, writer.shopId, poolSize)).map((id) => `${LINKS_PATH}/${id}/cancel`);
  const paths: Record<Side, string[]> = {
    reference: await cancelPaths(),
    'reference-cluster': await cancelPaths(),
    gateway: await cancelPaths(),
  };
  await fixtures.analyze();
  await measureAgainstReferences(ctx, 'cancel', (target, offset) =>
    apiRequest('POST', LINKS_PATH, writer.merchant, { body: '{}', paths: paths[target], pick: 'once', offset }),
  );
}

export function listScaleChecks(
  ctx: BenchContext,
  small: { first: Row; deep: Row },
  large: { first: Row; deep: Row },
  smallN: number,
  largeN: number,
): void {
  for (const page of ['first', 'deep'] as const) {
    const r = ratio(large[page].p99, small[page].p99);
    check(
      ctx,
      `list ${page} page p99 with ${largeN.toLocaleString('en')} links ≤ 1.2 × with ${smallN.toLocaleString('en')}`,
      `${large[page].p99} vs ${small[page].p99} ms = ${x(r)}${noise(large[page], small[page])}`,
      r <= 1.2,
    );
  }
}
