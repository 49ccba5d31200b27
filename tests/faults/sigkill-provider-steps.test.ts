import type { LinksCrashPoint } from '@pl/links/testing';
import { eventually, withDeadline } from '@pl/testing';
import { startServiceProcess, type ServiceProcess } from '../support/processes';
import { startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { createLiveLink } from '../support/live-links';

/**
 * SIGKILL between a provider step's record and its provider's answer (ADR 0017's crash points, ADR 0025): links runs
 * as a real process from dist/ against the provider fakes, armed with CRASH_AT, and dies there as an OOM kill would.
 * A replacement without CRASH_AT starts, and then status sync completes what the killed one left: no request that
 * could move money reaches the provider twice (the fakes count them), and the state ends as the provider's.
 */

const SYNC_ENV = { PROVIDER_SYNC_FIRST_DELAY_MS: '50', PROVIDER_SYNC_INTERVAL_MS: '50' };
const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** A kill, a restart and a few sync passes, on a machine busy with other work. */
const STEP_MS = 30_000;
jest.setTimeout(4 * STEP_MS);

let sys: TestSystem | undefined;
let receiver: WebhookReceiver | undefined;
const processes: ServiceProcess[] = [];

afterEach(async () => {
  for (const p of processes.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await p.exited;
  }
  await receiver?.close();
  await sys?.stop();
  sys = undefined;
  receiver = undefined;
});

async function start(): Promise<{ sys: TestSystem; merchant: TestMerchant; shop: TestShop; receiver: WebhookReceiver }> {
  sys = await startSystem({ providerFakes: true, withoutLinks: true, env: SYNC_ENV });
  receiver = await WebhookReceiver.start();
  const merchant = await sys.merchant();
  const shop = await sys.shop(merchant.id, { webhookUrl: receiver.url });
  return { sys, merchant, shop, receiver };
}

async function links(s: TestSystem, crashAt?: LinksCrashPoint): Promise<ServiceProcess> {
  const p = await startServiceProcess('links', { ...s.env, LOG_LEVEL: 'info', ...(crashAt ? { CRASH_AT: crashAt, CRASH_AT_HIT: '1' } : {}) });
  processes.push(p);
  return p;
}

async function expectKilled(p: ServiceProcess): Promise<void> {
  const code = await withDeadline(p.exited, STEP_MS, `${p.name} killed at its crash point`, () => p.lines.slice(-20).join('\n'));
  expect({ code, signal: p.child.signalCode }).toEqual({ code: null, signal: 'SIGKILL' });
}

const settles = (done: () => Promise<boolean>, what: string) => eventually(done, what, STEP_MS, 50);

const liveLink = (s: TestSystem, merchant: TestMerchant, shop: TestShop, amount: string): Promise<string> =>
  createLiveLink(s, merchant, shop, amount, 'kill');

it('links killed after Heleket made the invoice, before its answer was recorded: sync finds it by order id, no second create, and its payment pays the link', async () => {
  const w = await start();
  const armed = await links(w.sys, 'links.after-create-before-record');
  const id = await liveLink(w.sys, w.merchant, w.shop, '1500.00');
  const heleket = w.sys.fakes.heleket;
  heleket.callbackPolicy = { mode: 'drop', delayMs: 0, repeat: 1 };

  const selected = await w.sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' });
  expect(selected.status).not.toBe(200);
  await expectKilled(armed);
  const invoice = heleket.invoiceByOrder(`${id}-1`);
  expect(invoice).toBeDefined();
  expect(await w.sys.sql('SELECT state, gateway_payment_id FROM links.payment_attempts WHERE link_id = $1', [id])).toEqual([
    { state: 'creating', gateway_payment_id: null },
  ]);

  await links(w.sys);
  await settles(
    async () =>
      (await w.sys.sql<{ gateway_payment_id: string | null }>('SELECT gateway_payment_id FROM links.payment_attempts WHERE link_id = $1', [id]))[0]
        ?.gateway_payment_id === invoice!.uuid,
    'sync found the invoice by its order id',
  );
  // The money arrives for it (its callback dropped): sync reads it, and it pays the link at that attempt's amounts.
  const succeeded = w.receiver.waitFor((h) => h.json?.event === 'payment.succeeded' && h.json?.data?.payment_link_id === id);
  heleket.pay(invoice!.uuid);
  expect((await withDeadline(succeeded, STEP_MS, 'payment.succeeded')).json.data).toMatchObject({ status: 'paid', amount: '1500.00' });
  const creates = heleket.received.filter((r) => r.path === '/v1/payment' && r.body.includes(`${id}-1`));
  expect(creates).toHaveLength(1);
  expect(await w.sys.sql('SELECT state FROM links.payment_attempts WHERE link_id = $1', [id])).toEqual([{ state: 'paid' }]);
});

it('links killed after a Heleket refund and its posting committed, before the refund was sent: sync sends it once and settles it', async () => {
  const w = await start();
  const armed = await links(w.sys, 'links.after-refund-commit');
  const id = await liveLink(w.sys, w.merchant, w.shop, '2000.00');
  const heleket = w.sys.fakes.heleket;
  const selected = await w.sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' });
  expect(selected.status).toBe(200);
  const uuid = selected.body.gateway_payment_id as string;
  heleket.pay(uuid);
  await settles(
    async () => (await w.sys.sql<{ status: string }>('SELECT status FROM links.payment_links WHERE id = $1', [id]))[0]?.status === 'paid',
    'paid',
  );

  const refunded = await w.sys.http.post(
    `/merchant/v1/payment-links/${id}/refunds`,
    { amount: '300.00', destination: TRON_ADDRESS },
    { headers: w.merchant.keys },
  );
  expect(refunded.status).not.toBe(201);
  await expectKilled(armed);
  const [refund] = await w.sys.sql<{ id: string; status: string; gateway_refund_id: string | null }>(
    'SELECT id::text, status, gateway_refund_id FROM links.refunds WHERE payment_link_id = $1',
    [id],
  );
  expect(refund).toMatchObject({ status: 'pending', gateway_refund_id: null });
  expect(heleket.count('/v1/payment/refund')).toBe(0);

  heleket.callbackPolicy = { mode: 'drop', delayMs: 0, repeat: 1 };
  await links(w.sys);
  await settles(async () => heleket.refunds.some((r) => r.uuid === uuid), 'sync sent the refund');
  heleket.setStatus(uuid, 'refund_paid');
  await settles(
    async () => (await w.sys.sql<{ status: string }>('SELECT status FROM links.refunds WHERE id = $1', [refund!.id]))[0]?.status === 'succeeded',
    'the refund succeeded by sync',
  );
  expect(heleket.count('/v1/payment/refund')).toBe(1);
  expect(heleket.refunds).toEqual([{ uuid, address: TRON_ADDRESS, amount: '300.00', isSubtract: true }]);
  const events = await w.sys.sql<{ event: string }>("SELECT payload->>'event' AS event FROM links.outbox WHERE payload->'data'->>'id' = $1", [
    refund!.id,
  ]);
  expect(events).toEqual([{ event: 'refund.succeeded' }]);
});

it('links killed after a Raiffeisen refund committed, before it was sent: sync reads the bank first, then sends it once under the same refundId', async () => {
  const w = await start();
  const armed = await links(w.sys, 'links.after-refund-commit');
  const id = await liveLink(w.sys, w.merchant, w.shop, '1200.00');
  const bank = w.sys.fakes.raiffeisen;
  const selected = await w.sys.http.post(`/p/${id}/select`, { method: 'sbp' });
  expect(selected.status).toBe(200);
  await bank.pay(selected.body.gateway_payment_id as string);
  await settles(
    async () => (await w.sys.sql<{ status: string }>('SELECT status FROM links.payment_links WHERE id = $1', [id]))[0]?.status === 'paid',
    'paid',
  );

  const refunded = await w.sys.http.post(`/merchant/v1/payment-links/${id}/refunds`, { amount: '200.00' }, { headers: w.merchant.keys });
  expect(refunded.status).not.toBe(201);
  await expectKilled(armed);
  const [refund] = await w.sys.sql<{ id: string }>('SELECT id::text FROM links.refunds WHERE payment_link_id = $1', [id]);
  expect(bank.count('refund')).toBe(0);

  await links(w.sys);
  await settles(async () => bank.count('refund') >= 1, 'sync sent the refund');
  bank.settleRefund(refund!.id, 'COMPLETED');
  await settles(
    async () => (await w.sys.sql<{ status: string }>('SELECT status FROM links.refunds WHERE id = $1', [refund!.id]))[0]?.status === 'succeeded',
    'the refund succeeded by sync',
  );
  expect(bank.count('refund')).toBe(1);
  expect(bank.requests.filter((r) => r.kind === 'refund_info').length).toBeGreaterThanOrEqual(1);
});
