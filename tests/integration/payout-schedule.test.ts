import { randomUUID } from 'node:crypto';
import { BusClient, connectNats, IdentityTokens } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { Db } from '@pl/db';
import { loadConfig as linksConfig, payoutSchedulerDeps, runPayoutSchedule } from '@pl/links/testing';
import { createLogger } from '@pl/telemetry';
import type { NatsConnection } from 'nats';
import { renderOutcome, runCli } from '../../tools/admin/src/cli';
import type { CliIo } from '../../tools/admin/src/secrets';
import { expectError } from '../support/http';
import { verifyLedger } from '../support/money';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * docs/payouts.md, "Automatic payouts" (docs/adr/0046) against the real services: a shop's schedule is validated and
 * shown in the shop; two schedulers (two instances of their own pools and NATS connections) passing at once with a
 * clock of the test's make one payout of the period; below the minimum none; a weekly schedule waits for its Monday;
 * an account on hold gets none, recorded for the operator.
 */

jest.setTimeout(120_000);

const cliIo: CliIo = { readStdin: () => Promise.resolve(''), warn: () => undefined };
const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
let sys: TestSystem;
const scheduler: { db: Db; nc: NatsConnection; bus: BusClient; deps: ReturnType<typeof payoutSchedulerDeps> }[] = [];

beforeAll(async () => {
  sys = await startSystem({
    env: {
      PAYOUT_DESTINATION_COOLDOWN_HOURS: '0',
      PAYOUT_FEE: '1.50',
      // Small enough for one test to reach the account's 24 hours.
      PAYOUT_DAILY_MAX: '1000.00',
      // The service's own scheduler passes at start and then not again within the test: the test's clock decides.
      PAYOUT_SCHEDULE_INTERVAL_MS: '3600000',
    },
  });
  const config = linksConfig(sys.env);
  for (let i = 0; i < 2; i += 1) {
    const db = new Db({ url: sys.database.url, schema: 'links', log });
    const nc = await connectNats(config.NATS_URL, `payout-scheduler-test-${i}`, log);
    const bus = new BusClient(nc, sys.namespace, new IdentityTokens(config.IDENTITY_TOKEN_SECRET), 5000);
    scheduler.push({ db, nc, bus, deps: payoutSchedulerDeps(config, db, bus, log, () => undefined, randomUUID) });
  }
}, 90_000);

afterAll(async () => {
  for (const s of scheduler) {
    await s.nc.close();
    await s.db.close();
  }
  if (!sys) return;
  const verified = await verifyLedger(sys);
  expect({ unbalanced: verified.unbalanced, balances_mismatched: verified.balances_mismatched }).toEqual({ unbalanced: 0, balances_mismatched: 0 });
  await sys.stop();
});

const BANK = { recipient_name: 'ИП Иванов', inn: '500100732259', bik: '044525225', account: '40802810538000005678' };
/** Wednesday 2 December 2026, 15:00 Moscow: when the test's schedules count as set (2026-12-07 is a Monday). */
const SET_AT = '2026-12-02T12:00:00Z';
const THURSDAY_10_05 = new Date('2026-12-03T07:05:00Z');
const SATURDAY_NOON = new Date('2026-12-05T09:00:00Z');
const MONDAY_10_05 = new Date('2026-12-07T07:05:00Z');

interface Account {
  merchant: TestMerchant;
  shop: TestShop;
  auth: Record<string, string>;
  destinationId: string;
}

async function fundedAccount(amount: string): Promise<Account> {
  const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'client' });
  const auth = { Authorization: `Bearer ${await sys.login(merchant)}` };
  const link = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount }, { headers: merchant.keys });
  expect(link.status).toBe(201);
  expect((await sys.providerCallback(sandboxPaymentId(link.body.id as string), 'paid')).status).toBe(200);
  const made = await sys.http.post('/api/v1/payout-destinations', { type: 'bank_account', bank_account: BANK }, { headers: auth });
  expect(made.status).toBe(201);
  return { merchant, shop, auth, destinationId: made.body.id as string };
}

const setSchedule = (acc: Account, body: object) => sys.http.call('PUT', `/api/v1/shops/${acc.shop.id}/payout-schedule`, { headers: acc.auth, body });

/** Sets the schedule and dates it to SET_AT, so the test's clock, not the machine's, says which periods it is in force for. */
async function scheduled(acc: Account, interval: 'daily' | 'weekly', minimum: string): Promise<void> {
  const res = await setSchedule(acc, { interval, destination_id: acc.destinationId, minimum });
  expect(res.status).toBe(200);
  expect(res.body.payout_schedule).toEqual({ interval, destination_id: acc.destinationId, minimum });
  await sys.sql('UPDATE shops.payout_schedules SET updated_at = $2 WHERE shop_id = $1', [acc.shop.id, SET_AT]);
}

const payoutsOf = async (acc: Account) => {
  const res = await sys.http.get(`/api/v1/payouts?shop_id=${acc.shop.id}`, { headers: acc.auth });
  expect(res.status).toBe(200);
  return res.body.payouts as { amount: string; fee: string; created_by: string | null; status: string }[];
};

const runsOf = (acc: Account) =>
  sys.sql<{ period: string; outcome: string }>(
    `SELECT to_char(period, 'YYYY-MM-DD') AS period, outcome FROM links.payout_schedule_runs WHERE shop_id = $1 ORDER BY period`,
    [acc.shop.id],
  );

/** The two schedulers' passes at `now`. */
const first = (now: Date) => runPayoutSchedule(scheduler[0]!.deps, now);
const second = (now: Date) => runPayoutSchedule(scheduler[1]!.deps, now);

it('shows manual by default and refuses a bad minimum or a destination that is not the account’s', async () => {
  const acc = await fundedAccount('150.00');
  const shop = await sys.http.get(`/api/v1/shops/${acc.shop.id}`, { headers: acc.auth });
  expect(shop.body.payout_schedule).toEqual({ interval: 'manual', destination_id: null, minimum: null });

  expectError(
    await setSchedule(acc, { interval: 'daily', destination_id: acc.destinationId, minimum: '99.99' }),
    400,
    'common.err.validation_failed',
  );
  const low = await setSchedule(acc, { interval: 'daily', destination_id: acc.destinationId, minimum: '99.99' });
  expect(low.body.error.details[0].field).toBe('minimum');
  const high = await setSchedule(acc, { interval: 'daily', destination_id: acc.destinationId, minimum: '1000000.01' });
  expect([high.status, high.body.error.details[0].field]).toEqual([400, 'minimum']);
  const other = await fundedAccount('150.00');
  const foreign = await setSchedule(acc, { interval: 'weekly', destination_id: other.destinationId, minimum: '100.00' });
  expect([foreign.status, foreign.body.error.details[0].field]).toEqual([400, 'destination_id']);
  const missing = await setSchedule(acc, { interval: 'weekly', minimum: '100.00' });
  expect([missing.status, missing.body.error.details[0].field]).toEqual([400, 'destination_id']);

  const nextOf = async () => (await sys.http.get(`/api/v1/shops/${acc.shop.id}/next-payout`, { headers: acc.auth })).body;
  expect(await nextOf()).toEqual({ interval: 'manual', scheduled_at: null, amount: null, minimum: null });

  const set = await setSchedule(acc, { interval: 'weekly', destination_id: acc.destinationId, minimum: 250 });
  expect(set.body.payout_schedule).toEqual({ interval: 'weekly', destination_id: acc.destinationId, minimum: '250.00' });
  // 150.00 less the fee is below the minimum: the next Monday's 10:00 would pay nothing as things stand.
  const weekly = await nextOf();
  expect(weekly).toEqual({ interval: 'weekly', scheduled_at: expect.stringMatching(/T10:00:00\+03:00$/), amount: null, minimum: '250.00' });
  expect(new Date(weekly.scheduled_at as string).getUTCDay()).toBe(1);
  await setSchedule(acc, { interval: 'daily', destination_id: acc.destinationId, minimum: '100.00' });
  const daily = await nextOf();
  expect(daily).toMatchObject({ interval: 'daily', amount: '148.50', minimum: '100.00' });
  const dueIn = Date.parse(daily.scheduled_at as string) - Date.now();
  expect(dueIn > 0 && dueIn <= 24 * 3600 * 1000).toBe(true);
  // The schedule is of the session's mode: the test mode's is still manual.
  const inLive = await sys.http.get(`/merchant/v1/shops/${acc.shop.id}`, { headers: acc.merchant.keys });
  expect(inLive.body.payout_schedule.interval).toBe('daily');
  const inTest = await sys.http.get(`/merchant/v1/shops/${acc.shop.id}`, { headers: acc.merchant.testKeys });
  expect(inTest.body.payout_schedule).toEqual({ interval: 'manual', destination_id: null, minimum: null });
  const manual = await setSchedule(acc, { interval: 'manual' });
  expect(manual.body.payout_schedule).toEqual({ interval: 'manual', destination_id: null, minimum: null });
});

it('makes one payout of the period when two schedulers pass at once, and none again that period', async () => {
  const acc = await fundedAccount('500.00');
  await scheduled(acc, 'daily', '100.00');

  const [a, b] = await Promise.all([first(THURSDAY_10_05), second(THURSDAY_10_05)]);
  expect(a.created + b.created).toBe(1);

  const payouts = await payoutsOf(acc);
  expect(payouts).toHaveLength(1);
  // All of available less the fee; made by the schedule, not a member.
  expect(payouts[0]).toMatchObject({ amount: '498.50', fee: '1.50', created_by: null, status: 'approved' });
  expect(await runsOf(acc)).toEqual([{ period: '2026-12-03', outcome: 'created' }]);

  // Later that period (a replica catching up, up to 09:59 the next day) finds it decided and does nothing at all.
  const later = await Promise.all([first(new Date('2026-12-04T06:59:00Z')), second(new Date('2026-12-03T20:00:00Z'))]);
  expect(later.map((counts) => Object.values(counts).reduce((a, n) => a + n, 0))).toEqual([0, 0]);
  expect(await payoutsOf(acc)).toHaveLength(1);
  // The next day's period is its own: nothing is left to pay, so it records why.
  await first(new Date('2026-12-04T07:00:00Z'));
  expect(await runsOf(acc)).toEqual([
    { period: '2026-12-03', outcome: 'created' },
    { period: '2026-12-04', outcome: 'below_minimum' },
  ]);
});

it('makes no payout below the minimum, and records why', async () => {
  const acc = await fundedAccount('300.00');
  await scheduled(acc, 'daily', '1000.00');
  await Promise.all([first(THURSDAY_10_05), second(THURSDAY_10_05)]);
  expect(await payoutsOf(acc)).toHaveLength(0);
  expect(await runsOf(acc)).toEqual([{ period: '2026-12-03', outcome: 'below_minimum' }]);
});

it('pays a weekly schedule from its Monday 10:00, not on the days before', async () => {
  const acc = await fundedAccount('400.00');
  await scheduled(acc, 'weekly', '100.00');
  // Set on a Wednesday: the week that began on Monday 30 November was under way, so Thursday and Saturday pay nothing.
  await first(THURSDAY_10_05);
  await second(SATURDAY_NOON);
  expect(await payoutsOf(acc)).toHaveLength(0);
  await Promise.all([first(MONDAY_10_05), second(MONDAY_10_05)]);
  expect(await payoutsOf(acc)).toMatchObject([{ amount: '398.50', created_by: null }]);
  expect(await runsOf(acc)).toEqual([{ period: '2026-12-07', outcome: 'created' }]);
});

it('makes no payout while the account is on hold, and records it for the operator', async () => {
  const acc = await fundedAccount('200.00');
  await scheduled(acc, 'daily', '100.00');
  await sys.sql('UPDATE gateway.merchants SET payouts_on_hold = true WHERE id = $1', [acc.merchant.id]);
  await first(THURSDAY_10_05);
  expect(await payoutsOf(acc)).toHaveLength(0);
  expect(await runsOf(acc)).toEqual([{ period: '2026-12-03', outcome: 'on_hold' }]);
  // The operator reads why (payout:schedule-runs).
  const out = renderOutcome(await runCli(['payout:schedule-runs', '--merchant', acc.merchant.id], { DATABASE_URL: sys.database.url }, cliIo));
  expect(out.exitCode).toBe(0);
  expect(JSON.parse(out.stdout)).toEqual({
    runs: [
      {
        shop_id: acc.shop.id,
        merchant_id: acc.merchant.id,
        mode: 'live',
        period: '2026-12-03',
        interval: 'daily',
        outcome: 'on_hold',
        payout_id: null,
        available: '200.00',
        minimum: '100.00',
        decided_at: expect.stringMatching(/\+03:00$/),
      },
    ],
  });
});

it('makes no payout to a deleted destination, nor past the account’s 24 hours', async () => {
  const gone = await fundedAccount('300.00');
  await scheduled(gone, 'daily', '100.00');
  expect((await sys.http.call('DELETE', `/api/v1/payout-destinations/${gone.destinationId}`, { headers: gone.auth })).status).toBe(204);
  await first(THURSDAY_10_05);
  expect(await payoutsOf(gone)).toHaveLength(0);
  expect(await runsOf(gone)).toEqual([{ period: '2026-12-03', outcome: 'destination_not_active' }]);

  const busy = await fundedAccount('700.00');
  const made = await sys.http.post(
    '/api/v1/payouts',
    { shop_id: busy.shop.id, amount: '600.00', destination_id: busy.destinationId },
    { headers: busy.auth },
  );
  expect(made.status).toBe(201);
  await scheduled(busy, 'daily', '100.00');
  // 700.00 − 601.50 leaves 98.50 available: raise it past the minimum with another payment, then the 24 hours refuse it.
  const link = await sys.http.post('/merchant/v1/payment-links', { shop_id: busy.shop.id, amount: '500.00' }, { headers: busy.merchant.keys });
  expect((await sys.providerCallback(sandboxPaymentId(link.body.id as string), 'paid')).status).toBe(200);
  await first(THURSDAY_10_05);
  expect(await payoutsOf(busy)).toHaveLength(1);
  expect(await runsOf(busy)).toEqual([{ period: '2026-12-03', outcome: 'daily_limit' }]);
});

it('answers every schedule and the account’s payout side to platform services only', async () => {
  const acc = await fundedAccount('100.00');
  const bus = scheduler[0]!.bus;
  const asMerchant = { kind: 'merchant', merchant_id: acc.merchant.id, auth: 'session', email_confirmed: true, mode: 'live' } as const;
  await expect(bus.request(subjects.shopsPayoutSchedules, { after: null, limit: 10 }, asMerchant)).rejects.toMatchObject({ kind: 'forbidden' });
  const context = { merchant_id: acc.merchant.id, mode: 'live', destination_id: acc.destinationId } as const;
  await expect(bus.request(subjects.gatewayPayoutContext, context, asMerchant)).rejects.toMatchObject({ kind: 'forbidden' });
  // The links service's own identity reads both; a destination of the other mode is none.
  const links = { kind: 'service', service: 'links' } as const;
  await expect(bus.request(subjects.gatewayPayoutContext, context, links)).resolves.toMatchObject({
    on_hold: false,
    destination: { id: acc.destinationId, type: 'bank_account' },
    destination_active: true,
  });
  await expect(bus.request(subjects.gatewayPayoutContext, { ...context, mode: 'test' }, links)).resolves.toMatchObject({
    destination: null,
    destination_active: false,
  });
});
