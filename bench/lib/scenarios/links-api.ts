import { apiRequest, check, measurePair, type BenchContext } from '../context';
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
const cpuRatio = (r: { gateway: Row; reference: Row }): string =>
  r.gateway.cpuMsPerRequest && r.reference.cpuMsPerRequest
    ? `; CPU/req ${(r.gateway.cpuMsPerRequest / r.reference.cpuMsPerRequest).toFixed(2)}×`
    : '';
const x = (n: number): string => `${n.toFixed(2)}×`;

/** Route 1: create with API keys, 50 connections. */
export async function createScenario(ctx: BenchContext): Promise<{ gateway: Row; reference: Row }> {
  ctx.log('create (route 1)');
  const body = createBody(ctx.writer.shopId);
  const r = await measurePair(ctx, 'create', () => apiRequest('POST', LINKS_PATH, ctx.writer.merchant, { body }));
  const rps = ratio(r.gateway.rps, r.reference.rps);
  const p99 = ratio(r.gateway.p99, r.reference.p99);
  check(
    ctx,
    'create req/s ≥ 0.8 × reference',
    `${r.gateway.rps} vs ${r.reference.rps} req/s = ${x(rps)}${cpuRatio(r)}${noise(r.gateway, r.reference)}`,
    rps >= 0.8,
  );
  check(ctx, 'create p99 ≤ 1.5 × reference p99', `${r.gateway.p99} vs ${r.reference.p99} ms = ${x(p99)}${noise(r.gateway, r.reference)}`, p99 <= 1.5);
  check(ctx, 'create: zero errors at 50 connections', `${r.gateway.errors} errors`, r.gateway.errors === 0);
  return r;
}

/** Route 6: one link by id, random ids of the reader's history. */
export async function getScenario(ctx: BenchContext, label: string, ids: string[]): Promise<{ gateway: Row; reference: Row }> {
  const paths = ids.map((id) => `${LINKS_PATH}/${id}`);
  const r = await measurePair(ctx, `get ${label}`, () => apiRequest('GET', LINKS_PATH, ctx.reader.merchant, { paths, pick: 'random' }));
  const rps = ratio(r.gateway.rps, r.reference.rps);
  check(
    ctx,
    `get ${label} req/s ≥ 0.8 × reference`,
    `${r.gateway.rps} vs ${r.reference.rps} req/s = ${x(rps)}${cpuRatio(r)}${noise(r.gateway, r.reference)}`,
    rps >= 0.8,
  );
  return r;
}

/** Route 7: the first page, and a page deep down (by cursor), of the reader's links. */
export async function listScenario(ctx: BenchContext, label: string, deepCursor: string): Promise<{ first: Row; deep: Row }> {
  const first = await measurePair(ctx, `list first page ${label}`, () => apiRequest('GET', `${LINKS_PATH}?limit=20`, ctx.reader.merchant));
  const deep = await measurePair(ctx, `list deep page ${label}`, () =>
    apiRequest('GET', `${LINKS_PATH}?limit=20&cursor=${deepCursor}`, ctx.reader.merchant),
  );
  for (const [name, r] of [
    ['first page', first],
    ['deep page', deep],
  ] as const) {
    const rps = ratio(r.gateway.rps, r.reference.rps);
    check(
      ctx,
      `list ${name} ${label} req/s ≥ 0.8 × reference`,
      `${r.gateway.rps} vs ${r.reference.rps} req/s = ${x(rps)}${cpuRatio(r)}${noise(r.gateway, r.reference)}`,
      rps >= 0.8,
    );
  }
  return { first: first.gateway, deep: deep.gateway };
}

/** Route 4: every request cancels a different pending link (pools seeded apart for each side). */
export async function cancelScenario(ctx: BenchContext): Promise<void> {
  ctx.log('cancel (route 4)');
  const { settings, fixtures, writer } = ctx;
  // Enough for 2,500 cancels/s through warm-up and measurement; a pool that runs dry is reported.
  const poolSize = Math.ceil((settings.seconds + settings.warmupSeconds + settings.rounds) * 2500);
  const pools = {
    reference: await fixtures.seedPending(writer.merchant.id, writer.shopId, poolSize),
    gateway: await fixtures.seedPending(writer.merchant.id, writer.shopId, poolSize),
  };
  await fixtures.analyze();
  const paths = {
    reference: pools.reference.map((id) => `${LINKS_PATH}/${id}/cancel`),
    gateway: pools.gateway.map((id) => `${LINKS_PATH}/${id}/cancel`),
  };
  await measurePair(ctx, 'cancel', (target, offset) =>
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
