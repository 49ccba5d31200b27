import type {
  ApiKeyView,
  ApiKeyWithSecret,
  AuditEvent,
  BuyerLinkView,
  MerchantShop,
  MeView,
  PaymentLink,
  PaymentSucceededEvent,
  RotatedSecret,
  WebhookDelivery,
} from '@pl/contracts';
import type { reissuedCashierKey } from '@pl/contracts';
import type { z } from 'zod';

/**
 * The examples of the document: typed by the contracts, so a field that changes there breaks them at compile time,
 * and checked against the schemas they illustrate by the generator's tests.
 */
const LINK_ID = '6985eade-4dba-4db4-a03b-92e8f9abb973';
const AT = '2026-11-25T01:40:00+03:00';
const PAID_AT = '2026-11-25T01:55:15+03:00';

export const sampleLink: PaymentLink = {
  id: LINK_ID,
  shop_id: 42,
  order_id: 'order-1001',
  description: 'Two coffees',
  return_url: 'https://shop.example/orders/1001',
  currency: 'RUB',
  amount: '1500.00',
  fee_bps: 100,
  fee_percent_bp: 100,
  fee_payer: 'merchant',
  payer_amount: '1500.00',
  merchant_credit: '1485.00',
  platform_revenue: '15.00',
  status: 'pending',
  amount_refunded: '0.00',
  gateway_provider: null,
  gateway_payment_id: null,
  to_currency: null,
  network: null,
  deposit_address: null,
  payer_currency: null,
  payer_crypto_amount: null,
  qr: null,
  checkout_url: `https://pay.example/p/${LINK_ID}`,
  pay_url: `https://pay.example/p/${LINK_ID}`,
  paymentUrl: `https://pay.example/p/${LINK_ID}`,
  expires_at: '2026-11-26T01:40:00+03:00',
  paid_at: null,
  created_at: AT,
  updated_at: AT,
  livemode: true,
};

/** A link created with test credentials: the sandbox provider only, paid with the simulator. */
const TEST_LINK_ID = 'c2a7e4d1-5b9f-4e3a-8c6d-1f0b2a3e4d5c';
const sampleTestLink: PaymentLink = {
  ...sampleLink,
  id: TEST_LINK_ID,
  order_id: 'test-order-1',
  checkout_url: `https://pay.example/p/${TEST_LINK_ID}`,
  pay_url: `https://pay.example/p/${TEST_LINK_ID}`,
  paymentUrl: `https://pay.example/p/${TEST_LINK_ID}`,
  livemode: false,
};

export const sampleCanceledLink: PaymentLink = { ...sampleLink, status: 'canceled', updated_at: '2026-11-25T01:45:00+03:00' };

export const sampleLinkList = {
  payment_links: [sampleLink],
  payments: [sampleLink],
  has_more: false,
  next_cursor: null,
};

const { merchant_credit: _credit, platform_revenue: _revenue, fee_percent_bp: _fee, order_id: _order, ...buyerFields } = sampleLink;
export const sampleBuyerView: BuyerLinkView = {
  ...buyerFields,
  shop_name: 'Coffee on the corner',
  gateway_provider: 'sbp-sim',
  gateway_payment_id: 'sbp_7f3a91',
  qr: 'https://qr.nspk.ru/AS1000670LSS7DN18SJQDNP4B05KLJL2',
};

const { merchant_credit: _tc, platform_revenue: _tr, fee_percent_bp: _tf, order_id: _to, ...testBuyerFields } = sampleTestLink;
/** A test link (SBP selected) after `POST /p/{id}/simulate` `{ "status": "paid" }`: settled as a sandbox callback would. */
export const sampleSimulatedPaidView: BuyerLinkView = {
  ...testBuyerFields,
  shop_name: 'Coffee on the corner',
  fee_bps: 70,
  status: 'paid',
  gateway_provider: 'sandbox',
  gateway_payment_id: `sbx_${TEST_LINK_ID}`,
  to_currency: 'RUB',
  network: 'SBP',
  payer_currency: 'RUB',
  deposit_address: 'AS1K7QW2D9XN4TB6PZ3MV8RC5HJ0LYFG',
  qr: 'https://qr.nspk.ru/AS1K7QW2D9XN4TB6PZ3MV8RC5HJ0LYFG?type=02&bank=100000000111&sum=150000&cur=RUB&crc=3F2A',
  paid_at: PAID_AT,
  updated_at: PAID_AT,
};

export const sampleShop: MerchantShop = {
  id: 42,
  name: 'Coffee on the corner',
  status: 'approved',
  fee_payer: 'merchant',
  crypto_bps: 100,
  sbp_bps: 70,
  webhook_url: 'https://shop.example/webhooks',
  webhook_secret_set: true,
  webhook_events: ['payment.succeeded'],
  previous_secret_valid_until: null,
  created_at: AT,
  updated_at: AT,
};

export const sampleShopPage = { shops: [sampleShop], has_more: false, next_cursor: null };

export const sampleRotatedSecret: RotatedSecret = {
  webhook_secret: 'b3f1c2d4e5f60718293a4b5c6d7e8f90',
  standard_webhooks_secret: 'whsec_YjNmMWMyZDRlNWY2MDcxODI5M2E0YjVjNmQ3ZThmOTA=',
  previous_valid_until: '2026-11-26T01:40:00+03:00',
};

type ReissuedCashierKey = z.infer<typeof reissuedCashierKey>;

export const sampleTestCashierKey: ReissuedCashierKey = { cashier_key: 'svc_test_9Rk2Wm5Qx8Lb3Vn7Jc1Ty6Ps', mode: 'test' };

export const sampleDelivery: WebhookDelivery = {
  id: '0b7c1e52-9f0e-4c1a-8d6e-3f2a5b7c9d10',
  webhook_id: 'whk_21bd9aff-3f5b-4298-8335-61ff15c6e91c',
  payment_link_id: LINK_ID,
  shop_id: 42,
  event: 'payment.succeeded',
  status: 'succeeded',
  attempts: [{ attempt: 1, at: PAID_AT, status_code: 200, error: null, duration_ms: 84 }],
  attempts_omitted: 0,
  livemode: true,
};

export const sampleScheduledDelivery: WebhookDelivery = { ...sampleDelivery, status: 'pending', attempts: [] };

export const sampleTestDelivery: WebhookDelivery = {
  ...sampleScheduledDelivery,
  id: '5d2e8c41-7a3b-4f6e-9c1d-2b4a6e8f0a13',
  webhook_id: 'whk_7c0e3f6a-1b2d-4e5f-8a9b-0c1d2e3f4a5b',
  payment_link_id: null,
  event: 'webhook.test',
};

export const sampleDeliveryList = { deliveries: [sampleDelivery], has_more: false, next_cursor: null };

export const sampleMe: MeView = {
  merchant_id: '3f6c2a8e-1d4b-4c7e-9a2f-5b8d0e1c3a7f',
  email: 'owner@shop.example',
  email_confirmed: true,
  created_at: '2026-11-01T12:00:00+03:00',
};

export const sampleApiKey: ApiKeyView = {
  id: '9a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  label: 'Online store',
  public_key: 'pk_live_5TqN8vW2xY4zA6bC',
  mode: 'live',
  created_at: AT,
  last_used_at: null,
  expires_at: null,
  revoked_at: null,
};

export const sampleApiKeyWithSecret: ApiKeyWithSecret = { ...sampleApiKey, api_secret: 'sk_live_H7jK9mN1pQ3rS5tU7vW9xY1zA3bC5dE7' };

/** A test-mode pair: its links are test links, whichever Pl-Mode a session would send. */
export const sampleTestApiKey: ApiKeyView = {
  ...sampleApiKey,
  id: '2b7e4c1d-9f3a-4e6b-a5c8-7d0e1f2a3b4c',
  label: 'Integration tests',
  public_key: 'pk_test_8MrP3sK6tV9wX2yZ',
  mode: 'test',
};

export const sampleTestApiKeyWithSecret: ApiKeyWithSecret = { ...sampleTestApiKey, api_secret: 'sk_test_Q2wE4rT6yU8iO0pA2sD4fG6hJ8kL0zX2' };

export const sampleRevokedKey: ApiKeyView = { ...sampleApiKey, revoked_at: '2026-11-25T02:00:00+03:00' };

const sampleAuditEvent: AuditEvent = {
  id: '17',
  type: 'api_key.created',
  at: AT,
  ip: '203.0.113.7',
  subject: 'pk_live_5TqN8vW2xY4zA6bC',
};

export const sampleAuditPage = { audit_events: [sampleAuditEvent], has_more: false, next_cursor: null };

export const sampleLogin = { session_token: 'sess_Gm4Xn7Qw2Rt9Yb5Kp1Lc8Vz3', expires_at: '2026-12-09T01:40:00+03:00' };

export const samplePaymentSucceeded: Pick<PaymentSucceededEvent, 'event' | 'livemode' | 'data'> = {
  event: 'payment.succeeded',
  livemode: true,
  data: {
    payment_link_id: LINK_ID,
    id: LINK_ID,
    shop_id: 42,
    order_id: 'order-1001',
    amount: '1500.00',
    merchant_credit: '1485.00',
    status: 'paid',
    paid_at: PAID_AT,
  },
};

export const sampleWebhookTest = { event: 'webhook.test', livemode: true, data: { shop_id: 42, sent_at: PAID_AT } } as const;
