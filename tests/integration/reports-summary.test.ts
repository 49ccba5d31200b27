import { expectError } from '../support/http';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * docs/reports.md: the dashboard Home page's summary through the HTTP API, against the real services. Links are
 * made and paid through the API; their times are then moved in the database to the days the test needs (the only
 * way to have yesterday's payments today).
 */

jest.setTimeout(120_000);

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem();
}, 60_000);
afterAll(async () => {
  await sys?.stop();
});

const DAY_MS = 24 * 60 * 60 * 1000;
const MOSCOW_MS = 3 * 60 * 60 * 1000;

/** The Moscow date `daysAgo` days before today's, `YYYY-MM-DD`. */
const moscowDate = (daysAgo: number): string => new Date(Date.now() + MOSCOW_MS - daysAgo * DAY_MS).toISOString().slice(0, 10);
/** The instant of a Moscow wall-clock time on that date (`00:00:00` is the day's first instant). */
const moscowInstant = (daysAgo: number, time: string): string => `${moscowDate(daysAgo)}T${time}+03:00`;

const sessionOf = async (merchant: TestMerchant): Promise<Record<string, string>> => ({
  Authorization: `Bearer ${await sys.login(merchant, { passwordOnly: true })}`,
});

async function link(merchant: TestMerchant, shop: TestShop, amount: string, paid: boolean): Promise<string> {
  const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount }, { headers: merchant.keys });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  if (paid) expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
  return id;
}

/** Moves a link to another time: created then, and paid at `paidAt` when it is paid. */
async function moveLink(id: string, createdAt: string, paidAt?: string): Promise<void> {
  await sys.sql(
    `UPDATE links.payment_links SET created_at = $2, expires_at = $2::timestamptz + interval '1 day',
            paid_at = CASE WHEN status = 'paid' THEN coalesce($3::timestamptz, paid_at) END
      WHERE id = $1`,
    [id, createdAt, paidAt ?? null],
  );
}

interface Day {
  date: string;
  gross_volume: string;
  paid_count: number;
  created_count: number;
  created_paid_count: number;
  share_paid: number | null;
  refunds: string;
}
const zeroDay = (date: string): Day => ({
  date,
  gross_volume: '0.00',
  paid_count: 0,
  created_count: 0,
  created_paid_count: 0,
  share_paid: null,
  refunds: '0.00',
});

describe('GET /api/v1/reports/summary', () => {
  let merchant: TestMerchant;
  let shop: TestShop;
  let session: Record<string, string>;

  beforeAll(async () => {
    ({ merchant, shop } = await sys.merchantWithShop({ feePayer: 'client' }));
    session = await sessionOf(merchant);

    // Today (Moscow): two links, one paid at the day's very first instant (yesterday in UTC), one left pending.
    const firstOfToday = await link(merchant, shop, '100.00', true);
    await moveLink(firstOfToday, moscowInstant(0, '00:00:00'), moscowInstant(0, '00:00:00'));
    await link(merchant, shop, '5.00', false);
    // Yesterday: created and paid at its last microsecond, and a link created yesterday but paid today.
    const lastOfYesterday = await link(merchant, shop, '250.50', true);
    await moveLink(lastOfYesterday, moscowInstant(1, '23:59:59.999999'), moscowInstant(1, '23:59:59.999999'));
    const paidNextDay = await link(merchant, shop, '40.00', true);
    await moveLink(paidNextDay, moscowInstant(1, '12:00:00'), moscowInstant(0, '00:00:01'));
    // Part of yesterday's payment refunded (pending counts: its money is held for the buyer).
    const refund = await sys.http.post(`/merchant/v1/payment-links/${lastOfYesterday}/refunds`, { amount: '50.25' }, { headers: merchant.keys });
    expect(refund.status).toBe(201);
    // The window's first day (29 days ago) at its first instant is in; the instant before it is not.
    const firstDay = await link(merchant, shop, '10.00', true);
    await moveLink(firstDay, moscowInstant(29, '00:00:00'), moscowInstant(29, '00:00:00'));
    const beforeWindow = await link(merchant, shop, '999.00', true);
    await moveLink(beforeWindow, moscowInstant(30, '23:59:59.999999'), moscowInstant(30, '23:59:59.999999'));
  });

  it("answers 30 Moscow days oldest first, by each link's Moscow day, with zeros for the days without links", async () => {
    const res = await sys.http.get(`/api/v1/reports/summary?shop_id=${shop.id}`, { headers: session });
    expect(res.status).toBe(200);
    const days = res.body.days as Day[];
    expect(days).toHaveLength(30);
    expect(res.body).toMatchObject({ shop_id: shop.id, currency: 'RUB', livemode: true, from: moscowDate(29), to: moscowDate(0) });
    expect(days.map((d) => d.date)).toEqual(Array.from({ length: 30 }, (_, i) => moscowDate(29 - i)));

    expect(days[29]).toEqual({
      date: moscowDate(0),
      // 100.00 paid at 00:00:00 and yesterday's 40.00 link paid at 00:00:01.
      gross_volume: '140.00',
      paid_count: 2,
      created_count: 2,
      created_paid_count: 1,
      share_paid: 0.5,
      // Made today, of yesterday's payment: a refund counts on the day it was made.
      refunds: '50.25',
    });
    expect(days[28]).toEqual({
      date: moscowDate(1),
      gross_volume: '250.50',
      paid_count: 1,
      created_count: 2,
      created_paid_count: 2,
      share_paid: 1,
      refunds: '0.00',
    });
    expect(days[0]).toEqual({
      ...zeroDay(moscowDate(29)),
      gross_volume: '10.00',
      paid_count: 1,
      created_count: 1,
      created_paid_count: 1,
      share_paid: 1,
    });
    expect(days.slice(1, 28)).toEqual(Array.from({ length: 27 }, (_, i) => zeroDay(moscowDate(28 - i))));
  });

  it('adds the days up in totals, the share over every link created in the window', async () => {
    const res = await sys.http.get(`/api/v1/reports/summary?shop_id=${shop.id}`, { headers: session });
    expect(res.body.totals).toEqual({
      gross_volume: '400.50',
      paid_count: 4,
      created_count: 5,
      created_paid_count: 4,
      share_paid: 0.8,
      refunds: '50.25',
    });
  });

  it('answers the days asked for, today last', async () => {
    const res = await sys.http.get(`/api/v1/reports/summary?shop_id=${shop.id}&days=2`, { headers: session });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ from: moscowDate(1), to: moscowDate(0) });
    expect((res.body.days as Day[]).map((d) => d.gross_volume)).toEqual(['250.50', '140.00']);
  });

  it("counts every shop of the account without shop_id, and nothing of the other mode's", async () => {
    const second = await sys.shop(merchant.id, { feePayer: 'client' });
    await link(merchant, second, '7.00', true);
    const testLink = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '1000.00' }, { headers: merchant.testKeys });
    expect(testLink.status).toBe(201);
    const res = await sys.http.get('/api/v1/reports/summary', { headers: session });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ shop_id: null, livemode: true });
    expect((res.body.days as Day[]).at(-1)).toMatchObject({ gross_volume: '147.00', paid_count: 3, created_count: 3 });
    const test = await sys.http.get('/api/v1/reports/summary', { headers: { ...session, 'Pl-Mode': 'test' } });
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ livemode: false, totals: { gross_volume: '0.00', created_count: 1, share_paid: 0 } });
  });

  it("refuses another merchant's shop with 403, an unknown shop with 404", async () => {
    const other = await sys.merchantWithShop();
    expectError(await sys.http.get(`/api/v1/reports/summary?shop_id=${other.shop.id}`, { headers: session }), 403, 'common.err.forbidden');
    expectError(await sys.http.get('/api/v1/reports/summary?shop_id=999999999', { headers: session }), 404, 'common.err.not_found');
  });

  it.each([['days=0'], ['days=91'], ['days=abc'], ['days=1.5'], ['shop_id=0'], ['shop_id=x'], ['period=30']])(
    'refuses %s with 400 validation_failed',
    async (query) => {
      expectError(await sys.http.get(`/api/v1/reports/summary?${query}`, { headers: session }), 400, 'common.err.validation_failed');
    },
  );

  it('needs a session', async () => {
    expectError(await sys.http.get('/api/v1/reports/summary', { headers: merchant.keys }), 401, 'common.err.unauthorized');
  });
});
