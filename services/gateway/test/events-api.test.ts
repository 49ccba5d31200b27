import { randomUUID } from 'node:crypto';
import { publicEventId, subjects, type WebhookEvent } from '@pl/contracts';
import { forbidden, notFound } from '@pl/errors';
import { expectError } from '../../../tests/support/http';
import { startHarness, type Harness } from './harness';

/** The events API (docs/webhooks.md, "Event types") under both route families, in front of a scripted notifier. */
let h: Harness;
let m: Awaited<ReturnType<Harness['merchant']>>;
let session: Record<string, string>;
beforeAll(async () => {
  h = await startHarness();
  m = await h.merchant();
  const res = await h.request('POST', '/api/v1/auth/login', { body: { email: m.email, password: m.password } });
  expect(res.status).toBe(200);
  session = { Authorization: `Bearer ${res.body.session_token as string}` };
});
afterAll(() => h.stop());
beforeEach(() => {
  h.reset();
  h.on(subjects.eventsList.name, async () => ({ events: [event()], has_more: true, next_cursor: 'c2' }));
  h.on(subjects.eventsGet.name, async (p) => event((p as { event_id: string }).event_id));
});

const event = (eventId = publicEventId(randomUUID())): WebhookEvent => ({
  event: 'payment_link.expired',
  event_id: eventId,
  created_at: '2026-11-25T01:00:00+03:00',
  livemode: true,
  data: {
    payment_link_id: randomUUID(),
    id: randomUUID(),
    shop_id: 3,
    order_id: null,
    amount: '10.00',
    merchant_credit: '9.90',
    status: 'expired',
    expired_at: '2026-11-25T01:00:00+03:00',
  },
});

const identity = (auth: 'api_key' | 'session', mode: 'live' | 'test' = 'live') =>
  expect.objectContaining({ kind: 'merchant', merchant_id: m.id, auth, mode });

describe.each([
  ['/merchant/v1/events', () => m.keys, 'api_key' as const],
  ['/api/v1/events', () => session, 'session' as const],
])('GET %s', (base, headers, auth) => {
  it('lists with the filters mapped for the notifier, and with the defaults without a query', async () => {
    const link = randomUUID();
    const res = await h.request('GET', `${base}?type=refund.succeeded&shop_id=3&payment_link_id=${link.toUpperCase()}&limit=5&cursor=c1`, {
      headers: headers(),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ has_more: true, next_cursor: 'c2', events: [{ event: 'payment_link.expired' }] });
    expect((await h.request('GET', base, { headers: headers() })).status).toBe(200);
    expect(h.calls.map((c) => [c.subject, c.payload, c.identity])).toEqual([
      [subjects.eventsList.name, { type: 'refund.succeeded', shop_id: 3, payment_link_id: link, limit: 5, cursor: 'c1' }, identity(auth)],
      [subjects.eventsList.name, { type: null, shop_id: null, payment_link_id: null, limit: 20, cursor: null }, identity(auth)],
    ]);
  });

  it('answers 400 naming every bad filter, without asking the notifier', async () => {
    const res = await h.request('GET', `${base}?type=webhook.test&shop_id=0&payment_link_id=x&limit=101&extra=1`, { headers: headers() });
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['extra', 'limit', 'payment_link_id', 'shop_id', 'type']);
    expect(h.calls).toEqual([]);
  });

  it('reads one event by its public id', async () => {
    const id = publicEventId(randomUUID());
    const res = await h.request('GET', `${base}/${id}`, { headers: headers() });
    expect({ status: res.status, event_id: res.body.event_id }).toEqual({ status: 200, event_id: id });
    expect(h.calls.map((c) => [c.subject, c.payload, c.identity])).toEqual([[subjects.eventsGet.name, { event_id: id }, identity(auth)]]);
  });

  it("answers 404 for an id not of the evt_ form without asking, and passes the notifier's 404 and 403 on", async () => {
    for (const id of ['nope', randomUUID(), `evt_${'x'.repeat(36)}`]) {
      expectError(await h.request('GET', `${base}/${id}`, { headers: headers() }), 404, 'common.err.not_found');
    }
    expect(h.calls).toEqual([]);
    h.on(subjects.eventsGet.name, async () => {
      throw notFound('Event not found');
    });
    expectError(await h.request('GET', `${base}/${publicEventId(randomUUID())}`, { headers: headers() }), 404, 'common.err.not_found');
    h.on(subjects.eventsGet.name, async () => {
      throw forbidden('Event belongs to another merchant');
    });
    expectError(await h.request('GET', `${base}/${publicEventId(randomUUID())}`, { headers: headers() }), 403, 'common.err.forbidden');
  });

  it('answers 405 for another method', async () => {
    expectError(await h.request('POST', base, { headers: headers(), body: {} }), 405, 'common.err.method_not_allowed');
  });
});

describe('the mode of the caller', () => {
  it('asks the notifier in test mode for a test key pair and for a session with Pl-Mode: test', async () => {
    expect((await h.request('GET', '/merchant/v1/events', { headers: m.testKeys })).status).toBe(200);
    expect((await h.request('GET', '/api/v1/events', { headers: { ...session, 'Pl-Mode': 'test' } })).status).toBe(200);
    expect(h.calls.map((c) => c.identity)).toEqual([identity('api_key', 'test'), identity('session', 'test')]);
  });
});
