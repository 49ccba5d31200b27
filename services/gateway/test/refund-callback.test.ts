import { randomUUID } from 'node:crypto';
import { subjects, type Refund } from '@pl/contracts';
import { notFound, refundNotPending } from '@pl/errors';
import { expectError } from '../../../tests/support/http';
import { DEV_PROVIDER_SANDBOX_SECRET } from '../src/config';
import { hmacSha256Hex } from '@pl/providers';
import { startHarness, type Harness } from './harness';

/** The sandbox provider's refund verdicts at `POST /callbacks/v1/sandbox`, beside its payment verdicts. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());
beforeEach(() => {
  h.reset();
  h.on(subjects.refundsSettle.name, async (p) => {
    const c = p as { status: Refund['status']; failure_reason: string | null; gateway_refund_id: string };
    return refund({ status: c.status, failure_reason: c.failure_reason, gateway_refund_id: c.gateway_refund_id });
  });
});

const refund = (over: Partial<Refund> = {}): Refund => ({
  id: randomUUID(),
  payment_link_id: randomUUID(),
  shop_id: 3,
  amount: '10.00',
  currency: 'RUB',
  status: 'pending',
  reason: null,
  destination: null,
  gateway_refund_id: null,
  failure_reason: null,
  late_payment_id: null,
  livemode: true,
  created_at: '2026-11-25T01:00:00+03:00',
  updated_at: '2026-11-25T01:00:00+03:00',
  ...over,
});

const signedCallback = (body: string, signature = hmacSha256Hex(DEV_PROVIDER_SANDBOX_SECRET, Buffer.from(body))) =>
  h.request('POST', '/callbacks/v1/sandbox', { body, headers: { 'X-Provider-Signature': signature } });
const RECEIVED = { status: 200, body: { received: true } };
const GATEWAY = { kind: 'service', service: 'gateway' };

describe('POST /callbacks/v1/sandbox with a refund verdict', () => {
  it('settles the refund through links as the gateway, naming the provider, and answers received', async () => {
    const gatewayRefundId = `sbr_${randomUUID()}`;
    for (const verdict of [
      { gateway_refund_id: gatewayRefundId, status: 'succeeded' },
      { gateway_refund_id: gatewayRefundId, status: 'failed', failure_reason: 'Card closed, "expired"' },
    ]) {
      const res = await signedCallback(JSON.stringify(verdict));
      expect({ status: res.status, body: res.body }).toEqual(RECEIVED);
    }
    expect(h.calls.map((c) => [c.subject, c.payload, c.identity])).toEqual([
      [
        subjects.refundsSettle.name,
        { provider: 'sandbox', gateway_refund_id: gatewayRefundId, refund_id: null, status: 'succeeded', failure_reason: null },
        GATEWAY,
      ],
      [
        subjects.refundsSettle.name,
        { provider: 'sandbox', gateway_refund_id: gatewayRefundId, refund_id: null, status: 'failed', failure_reason: 'Card closed, "expired"' },
        GATEWAY,
      ],
    ]);
  });

  it("keeps a provider's word on a refund whatever its failure_reason holds: line breaks, controls, bidi, a long text", async () => {
    const gatewayRefundId = `sbr_${randomUUID()}`;
    const reasons = ['Card closed\nby the bank', 'Refused\r\n\tcode 51\u0000', '\u202eevil', 'x'.repeat(1500)];
    for (const reason of reasons) {
      const res = await signedCallback(JSON.stringify({ gateway_refund_id: gatewayRefundId, status: 'failed', failure_reason: reason }));
      expect({ status: res.status, body: res.body }).toEqual(RECEIVED);
    }
    // Passed on as the provider wrote it: the links service makes it safe for display where it is stored.
    expect(h.calls.map((c) => (c.payload as { failure_reason: string }).failure_reason)).toEqual(reasons);
  });

  it('still settles payments at the same address', async () => {
    const res = await signedCallback(JSON.stringify({ gateway_payment_id: 'sbx_abc', status: 'paid' }));
    expect({ status: res.status, body: res.body }).toEqual(RECEIVED);
    expect(h.calls.map((c) => [c.subject, c.payload])).toEqual([
      [subjects.linksSettle.name, { provider: 'sandbox', gateway_payment_id: 'sbx_abc', order_id: null, status: 'paid', provider_status: 'paid' }],
    ]);
  });

  it('answers 401 for a missing or wrong signature, before reading the body', async () => {
    const body = JSON.stringify({ gateway_refund_id: 'sbr_1', status: 'succeeded' });
    expectError(await h.request('POST', '/callbacks/v1/sandbox', { body }), 401, 'common.err.unauthorized');
    expectError(await signedCallback(body, hmacSha256Hex('another-secret', Buffer.from(body))), 401, 'common.err.unauthorized');
    expectError(await signedCallback(body, hmacSha256Hex(DEV_PROVIDER_SANDBOX_SECRET, Buffer.from(`${body} `))), 401, 'common.err.unauthorized');
    expect(h.calls).toEqual([]);
  });

  it('holds a refund verdict to its own shape: 400 naming every bad field', async () => {
    const res = await signedCallback(JSON.stringify({ gateway_refund_id: '', status: 'refunded', failure_reason: 7, extra: 1 }));
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['extra', 'failure_reason', 'gateway_refund_id', 'status']);
    expectError(await signedCallback('{"gateway_refund_id":'), 400, 'common.err.invalid_json');
    expect(h.calls).toEqual([]);
  });

  it('answers 200 received to a duplicate, whether links answers the refund again or refuses it as final', async () => {
    const body = JSON.stringify({ gateway_refund_id: 'sbr_dup', status: 'succeeded' });
    expect(await signedCallback(body)).toMatchObject(RECEIVED);
    h.on(subjects.refundsSettle.name, async () => {
      throw refundNotPending('succeeded');
    });
    expect(await signedCallback(body)).toMatchObject(RECEIVED);
    expect(h.calls.filter((c) => c.subject === subjects.refundsSettle.name)).toHaveLength(2);
  });

  it('passes 404 on for a refund links does not know, so the provider retries', async () => {
    h.on(subjects.refundsSettle.name, async () => {
      throw notFound('Refund not found');
    });
    expectError(await signedCallback(JSON.stringify({ gateway_refund_id: 'sbr_unknown', status: 'failed' })), 404, 'common.err.not_found');
  });
});
