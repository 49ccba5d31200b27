import { idempotencyScope, isValidIdempotencyKey } from './idempotency';

const MERCHANT = '7d0f5a6e-3b1c-4c39-9a57-0d5e4f1b2c3a';

describe('isValidIdempotencyKey', () => {
  it.each(['a', 'order-42/retry 1', 'k'.repeat(255)])('accepts %j', (k) => expect(isValidIdempotencyKey(k)).toBe(true));
  it.each(['', 'k'.repeat(256), 'ключ', 'tab\t', 'nul\u0000'])('refuses %j', (k) => expect(isValidIdempotencyKey(k)).toBe(false));
});

describe('idempotencyScope', () => {
  it('separates routes of one merchant', () => {
    const id = { kind: 'merchant', merchant_id: MERCHANT, auth: 'api_key', mode: 'live', email_confirmed: true } as const;
    expect(idempotencyScope(id, 'a')).not.toBe(idempotencyScope(id, 'b'));
  });

  it('separates the shops of one merchant using cashier keys', () => {
    const base = { kind: 'merchant', merchant_id: MERCHANT, auth: 'cashier', mode: 'live', email_confirmed: true } as const;
    expect(idempotencyScope({ ...base, shop_id: 1 }, 'r')).not.toBe(idempotencyScope({ ...base, shop_id: 2 }, 'r'));
  });

  it('separates the modes of one merchant, for API keys and cashier keys alike', () => {
    const live = { kind: 'merchant', merchant_id: MERCHANT, auth: 'api_key', mode: 'live', email_confirmed: true } as const;
    expect(idempotencyScope({ ...live, mode: 'test' }, 'r')).not.toBe(idempotencyScope(live, 'r'));
    const cashier = { ...live, auth: 'cashier', shop_id: 1 } as const;
    expect(idempotencyScope({ ...cashier, mode: 'test' }, 'r')).not.toBe(idempotencyScope(cashier, 'r'));
  });
});
