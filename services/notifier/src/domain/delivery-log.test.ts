import { ATTEMPT_ERROR_MAX_LENGTH, DELIVERY_ATTEMPTS_SHOWN, webhookDelivery } from '@pl/contracts';
import type { AttemptRecord, DeliveryRecord } from './delivery';
import { attemptErrorText, decodeDeliveryCursor, encodeDeliveryCursor, toWebhookDelivery } from './delivery-log';

describe('delivery cursor', () => {
  it('round-trips a position', () => {
    expect(decodeDeliveryCursor(encodeDeliveryCursor(42n))).toBe(42n);
  });

  it.each(['', 'not base64!', Buffer.from('v2:1').toString('base64url'), Buffer.from('v1:-1').toString('base64url')])('refuses %j', (text) => {
    expect(() => decodeDeliveryCursor(text)).toThrow(expect.objectContaining({ kind: 'validation' }));
  });
});

describe('toWebhookDelivery', () => {
  const attempt = (n: number): AttemptRecord => ({
    series: Math.ceil(n / 8),
    attempt: ((n - 1) % 8) + 1,
    at: new Date(Date.UTC(2026, 10, 22, 9, 0, n)),
    durationMs: 10,
    statusCode: 500,
    error: null,
  });
  const delivery = (attempts: AttemptRecord[], attemptsOmitted = 0, livemode = true): DeliveryRecord => ({
    id: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
    seq: 1n,
    webhookId: 'whk_6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
    event: 'payment.succeeded',
    merchantId: '11111111-2222-4333-8444-555555555555',
    shopId: 1,
    paymentLinkId: '7f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
    livemode,
    status: 'failed',
    series: 4,
    attemptsMade: 8,
    attempts,
    attemptsOmitted,
  });

  it('shows every attempt of a short history and omits none', () => {
    const view = toWebhookDelivery(delivery([1, 2, 3].map(attempt)));
    expect(webhookDelivery.parse(view)).toEqual(view);
    expect(view.attempts).toHaveLength(3);
    expect(view.attempts_omitted).toBe(0);
  });

  it('shows the mode the delivery was stored in', () => {
    expect(toWebhookDelivery(delivery([], 0, true)).livemode).toBe(true);
    expect(toWebhookDelivery(delivery([], 0, false)).livemode).toBe(false);
  });

  it('shows the newest attempts only, oldest first, and counts the rest with those the store left out', () => {
    const all = Array.from({ length: 30 }, (_, i) => attempt(i + 1));
    const view = toWebhookDelivery(delivery(all, 2));
    expect(view.attempts).toHaveLength(DELIVERY_ATTEMPTS_SHOWN);
    expect(view.attempts[0]?.at).toBe('2026-11-22T12:00:11+03:00');
    expect(view.attempts.at(-1)?.at).toBe('2026-11-22T12:00:30+03:00');
    expect(view.attempts_omitted).toBe(12);
  });

  it('writes an attempt error as printable ASCII within its length', () => {
    expect(attemptErrorText(null)).toBeNull();
    expect(attemptErrorText('connection failed: ECONNRESET')).toBe('connection failed: ECONNRESET');
    expect(attemptErrorText('bad\u0000\u00e9\u{1F375}')).toBe('bad???');
    expect(attemptErrorText('x'.repeat(500))).toHaveLength(ATTEMPT_ERROR_MAX_LENGTH);
  });
});
