import type { LinksCrashPoint } from '@pl/links/testing';
import { payoutOrderId } from '@pl/providers';
import { eventually, withDeadline } from '@pl/testing';
import { expectLedgerClean } from '../support/money';
import { startServiceProcess, type ServiceProcess } from '../support/processes';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { createLiveLink } from '../support/live-links';

/**
 * SIGKILL between a crypto payout's processing record and Heleket's answer (ADR 0044, with ADR 0017's crash points):
 * links runs as a real process from dist/ against the Heleket fake, armed with CRASH_AT, and dies there as an OOM kill
 * would. A replacement without CRASH_AT starts, and status sync completes the payout: it reads `payout/info` before
 * anything is sent again, so the fake counts no second create that could pay twice, and the payout ends as Heleket's
 * (its webhooks dropped: sync alone completes it). One system for the file; links processes come and go.
 */

const ENV = {
  PROVIDER_SYNC_FIRST_DELAY_MS: '50',
  PROVIDER_SYNC_INTERVAL_MS: '50',
  PAYOUT_WORKER_INTERVAL_MS: '50',
  PAYOUT_DESTINATION_COOLDOWN_HOURS: '0',
  // A create's call is certainly over twice this after the payout went processing: sync may then send it again.
  PROVIDER_REQUEST_TIMEOUT_MS: '500',
  RATE_LIMIT_SESSION_PER_MINUTE: '1000000',
};
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** A kill, a restart and a few sync passes, on a machine busy with other work. */
const STEP_MS = 30_000;
jest.setTimeout(4 * STEP_MS);

let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
let auth: Record<string, string>;
let destinationId: string;
let running: ServiceProcess | undefined;

async function links(crashAt?: LinksCrashPoint): Promise<ServiceProcess> {
  running = await startServiceProcess('links', { ...sys.env, LOG_LEVEL: 'info', ...(crashAt ? { CRASH_AT: crashAt, CRASH_AT_HIT: '1' } : {}) });
  return running;
}

async function stopLinks(): Promise<void> {
  const p = running;
  running = undefined;
  if (!p) return;
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await p.exited;
}

async function expectKilled(p: ServiceProcess): Promise<void> {
  const code = await withDeadline(p.exited, STEP_MS, `${p.name} killed at its crash point`, () => p.lines.slice(-20).join('\n'));
  expect({ code, signal: p.child.signalCode }).toEqual({ code: null, signal: 'SIGKILL' });
}

const settles = (done: () => Promise<boolean>, what: string) => eventually(done, what, STEP_MS, 50);

interface PayoutRow {
  status: string;
  provider_payout_id: string | null;
}
const rowOf = async (id: string): Promise<PayoutRow> =>
  (await sys.sql<PayoutRow & Record<string, unknown>>('SELECT status, provider_payout_id FROM links.payouts WHERE id = $1', [id]))[0]!;

const createsOf = (orderId: string): number => sys.fakes.heleket.received.filter((r) => r.path === '/v1/payout' && r.body.includes(orderId)).length;

beforeAll(async () => {
  sys = await startSystem({ providerFakes: true, withoutLinks: true, env: ENV });
  await links();
  ({ merchant, shop } = await sys.merchantWithShop({ feePayer: 'client' }));
  auth = { Authorization: `Bearer ${await sys.login(merchant)}` };
  const dest = await sys.http.post(
    '/api/v1/payout-destinations',
    { type: 'crypto_address', crypto_address: { network: 'USDT-TRC20', address: TRON } },
    { headers: auth },
  );
  expect(dest.status).toBe(201);
  destinationId = dest.body.id as string;
  const link = await createLiveLink(sys, merchant, shop, '5000.00', 'payout-kill');
  const selected = await sys.http.post(`/p/${link}/select`, { method: 'crypto', network: 'USDT-TRC20' });
  expect(selected.status).toBe(200);
  sys.fakes.heleket.pay(selected.body.gateway_payment_id as string);
  await settles(
    async () => (await sys.sql<{ status: string }>('SELECT status FROM links.payment_links WHERE id = $1', [link]))[0]?.status === 'paid',
    'the shop credited',
  );
  // Every payout webhook is lost: what completes a payout here is status sync.
  sys.fakes.heleket.callbackPolicy = { mode: 'drop', delayMs: 0, repeat: 1 };
  await stopLinks();
}, 4 * STEP_MS);

afterAll(async () => {
  await stopLinks();
  if (!sys) return;
  await expectLedgerClean(sys);
  await sys.stop();
}, 60_000);

async function payout(amount: string): Promise<string> {
  const made = await sys.http.post('/api/v1/payouts', { shop_id: shop.id, amount, destination_id: destinationId }, { headers: auth });
  expect(made.status).toBe(201);
  return made.body.id as string;
}

async function expectPaidBySyncOnce(id: string): Promise<void> {
  const orderId = payoutOrderId(id);
  sys.fakes.heleket.setPayoutStatus(orderId, 'paid');
  await settles(async () => (await rowOf(id)).status === 'paid', 'sync read it paid');
  expect(createsOf(orderId)).toBe(1);
  expect(await rowOf(id)).toEqual({ status: 'paid', provider_payout_id: sys.fakes.heleket.payout(orderId)!.uuid });
  const events = await sys.sql<{ event: string }>(
    "SELECT payload->>'event' AS event FROM links.outbox WHERE payload->'data'->>'id' = $1 ORDER BY created_at, id",
    [id],
  );
  expect(events.map((e) => e.event)).toEqual(['payout.created', 'payout.paid']);
}

it('links killed after Heleket made the payout, before its answer was recorded: sync finds it by order id and sends no second create', async () => {
  const armed = await links('links.after-payout-create-before-record');
  const id = await payout('700.00');
  await expectKilled(armed);
  const orderId = payoutOrderId(id);
  expect(sys.fakes.heleket.payout(orderId)).toBeDefined();
  expect(createsOf(orderId)).toBe(1);
  expect(await rowOf(id)).toEqual({ status: 'processing', provider_payout_id: null });

  await links();
  await settles(async () => (await rowOf(id)).provider_payout_id === sys.fakes.heleket.payout(orderId)!.uuid, 'sync found it by its order id');
  expect(createsOf(orderId)).toBe(1);
  await expectPaidBySyncOnce(id);
  await stopLinks();
});

it('links killed after the payout went processing, before its create was sent: sync finds none at Heleket and sends it once', async () => {
  const armed = await links('links.after-payout-processing');
  const id = await payout('800.00');
  await expectKilled(armed);
  const orderId = payoutOrderId(id);
  expect(createsOf(orderId)).toBe(0);
  expect(await rowOf(id)).toEqual({ status: 'processing', provider_payout_id: null });

  await links();
  await settles(async () => sys.fakes.heleket.payout(orderId) !== undefined, 'sync sent the create once Heleket showed none');
  // Heleket was asked first: no create before its payout/info said "not found".
  const requests = sys.fakes.heleket.received.filter((r) => r.body.includes(orderId)).map((r) => r.path);
  expect(requests[0]).toBe('/v1/payout/info');
  await expectPaidBySyncOnce(id);
  await stopLinks();
});
