import type {
  Summary,
  ApiKeyView,
  ApiKeyWithSecret,
  AuditEvent,
  Balance,
  BalanceTransaction,
  BalanceTransactionPage,
  BuyerLinkView,
  PaymentAttemptList,
  EventType,
  MerchantShop,
  NextPayout,
  MeView,
  SessionView,
  MemberView,
  InvitationView,
  PaymentLink,
  Payout,
  PayoutDestination,
  PayoutPage,
  Refund,
  RefundPage,
  RotatedSecret,
  UnresolvedPaymentView,
  WebhookDelivery,
  WebhookEvent,
  WebhookEventPage,
} from '@pl/contracts';
import type { PasskeyAuthenticationOptions, PasskeyView, reissuedCashierKey } from '@pl/contracts';
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
  failure_reason: null,
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
  methods: { sbp: true, crypto_networks: ['USDT-TRC20', 'USDT-TON', 'BTC-BTC'] },
  payment_progress: null,
};

const { merchant_credit: _tc, platform_revenue: _tr, fee_percent_bp: _tf, order_id: _to, ...testBuyerFields } = sampleTestLink;
/** A test link (SBP selected) after `POST /p/{id}/simulate` `{ "status": "paid" }`: settled as a sandbox callback would. */
export const sampleSimulatedPaidView: BuyerLinkView = {
  ...testBuyerFields,
  shop_name: 'Coffee on the corner',
  methods: { sbp: true, crypto_networks: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON'] },
  payment_progress: null,
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
  payment_methods: { sbp: true, crypto_networks: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON'] },
  previous_secret_valid_until: null,
  payout_schedule: { interval: 'manual', destination_id: null, minimum: null },
  created_at: AT,
  updated_at: AT,
};

/** The shop after its payout schedule was set: daily at 10:00 Moscow time, once `available` less the fee reaches 5,000.00. */
export const sampleScheduledShop: MerchantShop = {
  ...sampleShop,
  payout_schedule: { interval: 'daily', destination_id: '6f1c2a4e-8b0d-4e3a-9c57-2d8e1f0a3b64', minimum: '5000.00' },
};

/** The scheduled shop's next payout: tomorrow at 10:00 Moscow time, of its available 12,480.00 less a fee of 1.50. */
export const sampleNextPayout: NextPayout = {
  interval: 'daily',
  scheduled_at: '2026-12-04T10:00:00+03:00',
  amount: '12478.50',
  minimum: '5000.00',
};

/** The shop after PATCH `webhook_events` and `payment_methods`: expiries and refunds are sent too; crypto on two networks only. */
export const sampleSubscribedShop: MerchantShop = {
  ...sampleShop,
  webhook_url: 'https://shop.example/hooks/v2',
  webhook_events: ['payment.succeeded', 'payment_link.expired', 'refund.succeeded'],
  payment_methods: { sbp: true, crypto_networks: ['USDT-TRC20', 'BTC-BTC'] },
  updated_at: '2026-11-25T02:10:00+03:00',
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
  webhook_id: 'evt_21bd9aff-3f5b-4298-8335-61ff15c6e91c',
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
  webhook_id: 'evt_7c0e3f6a-1b2d-4e5f-8a9b-0c1d2e3f4a5b',
  payment_link_id: null,
  event: 'webhook.test',
};

export const sampleDeliveryList = { deliveries: [sampleDelivery], has_more: false, next_cursor: null };

export const sampleMe: MeView = {
  user_id: '7b2d9e4f-3a1c-4e8b-9d6f-0c5a2e7b1d43',
  email: 'owner@shop.example',
  email_confirmed: true,
  two_factor: { totp: false, passkeys: 0, recovery_codes_left: 0 },
  merchant_id: '3f6c2a8e-1d4b-4c7e-9a2f-5b8d0e1c3a7f',
  account: { merchant_id: '3f6c2a8e-1d4b-4c7e-9a2f-5b8d0e1c3a7f', role: 'owner', require_two_factor: false },
  memberships: [{ merchant_id: '3f6c2a8e-1d4b-4c7e-9a2f-5b8d0e1c3a7f', name: 'Shop Example LLC', role: 'owner' }],
  created_at: '2026-11-01T12:00:00+03:00',
};

export const sampleSession: SessionView = {
  id: '4c8e1f2a-6b3d-4e7f-9a0c-1d2e3f4a5b6c',
  ip: '203.0.113.7',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0 Safari/537.36',
  created_at: '2026-11-25T09:12:00+03:00',
  last_seen_at: '2026-11-25T10:40:00+03:00',
  current: true,
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
  user_id: '7b2d9e4f-3a1c-4e8b-9d6f-0c5a2e7b1d43',
  user_email: 'owner@shop.example',
  role: 'owner',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0 Safari/537.36',
};

export const sampleAuditPage = { audit_events: [sampleAuditEvent], has_more: false, next_cursor: null };

export const sampleLogin = { session_token: 'sess_Gm4Xn7Qw2Rt9Yb5Kp1Lc8Vz3', expires_at: '2026-12-09T01:40:00+03:00' };

/** A refund of 500.00 of the paid link, as created (the sandbox provider accepted it at once). */
const REFUND_ID = '8d3f1a6c-2b7e-4c90-9e15-4a6b7c8d9e0f';
const REFUNDED_AT = '2026-11-25T02:20:05+03:00';
export const sampleRefund: Refund = {
  id: REFUND_ID,
  payment_link_id: LINK_ID,
  shop_id: 42,
  amount: '500.00',
  currency: 'RUB',
  status: 'pending',
  reason: 'The buyer returned one coffee',
  destination: null,
  gateway_refund_id: `sbr_${REFUND_ID}`,
  failure_reason: null,
  late_payment_id: null,
  livemode: true,
  created_at: '2026-11-25T02:20:00+03:00',
  updated_at: '2026-11-25T02:20:00+03:00',
};
export const sampleSucceededRefund: Refund = { ...sampleRefund, status: 'succeeded', updated_at: REFUNDED_AT };
export const sampleRefundPage: RefundPage = { refunds: [sampleSucceededRefund], has_more: false, next_cursor: null };
/** A test refund after `POST /api/v1/refunds/{id}/simulate` `{ "status": "succeeded" }`. */
export const sampleSimulatedRefund: Refund = {
  ...sampleSucceededRefund,
  id: 'e4b2c7d9-1f3a-4b5c-8d6e-7f8a9b0c1d2e',
  payment_link_id: TEST_LINK_ID,
  gateway_refund_id: 'sbr_e4b2c7d9-1f3a-4b5c-8d6e-7f8a9b0c1d2e',
  livemode: false,
};

const summaryFigures = (grossVolume: string, paid: number, created: number, createdPaid: number, refunds: string) => ({
  gross_volume: grossVolume,
  paid_count: paid,
  created_count: created,
  created_paid_count: createdPaid,
  share_paid: created === 0 ? null : Math.round((createdPaid / created) * 10_000) / 10_000,
  refunds,
});

/** Three days of a shop: a quiet one, the sample link's, and today with three links and one paid. */
export const sampleSummary: Summary = {
  shop_id: 42,
  currency: 'RUB',
  livemode: true,
  from: '2026-11-23',
  to: '2026-11-25',
  days: [
    { date: '2026-11-23', ...summaryFigures('0.00', 0, 0, 0, '0.00') },
    { date: '2026-11-24', ...summaryFigures('1500.00', 1, 1, 1, '500.00') },
    { date: '2026-11-25', ...summaryFigures('3000.00', 1, 3, 1, '0.00') },
  ],
  totals: summaryFigures('4500.00', 2, 4, 2, '500.00'),
};

/** The shop's balance after the paid link (1485.00 credited) and the pending refund of 500.00. */
export const sampleBalance: Balance = {
  shop_id: 42,
  currency: 'RUB',
  livemode: true,
  balance: '985.00',
  available: '985.00',
  pending: '0.00',
  refund_reserve: '500.00',
  updated_at: '2026-11-25T02:20:00+03:00',
};

const samplePaymentRow: BalanceTransaction = {
  id: '3c9e5a71-6d2b-4f8e-a1c4-b7d0e2f39a15',
  shop_id: 42,
  type: 'payment',
  amount: '1500.00',
  fee: '15.00',
  net: '1485.00',
  balance_after: '1485.00',
  payment_link_id: LINK_ID,
  refund_id: null,
  payout_id: null,
  created_at: PAID_AT,
};
const sampleRefundRow: BalanceTransaction = {
  id: '7a1d4e82-9b3c-4d5f-8e6a-0b1c2d3e4f5a',
  shop_id: 42,
  type: 'refund',
  amount: '-500.00',
  fee: '0.00',
  net: '-500.00',
  balance_after: '985.00',
  payment_link_id: LINK_ID,
  refund_id: REFUND_ID,
  payout_id: null,
  created_at: '2026-11-25T02:20:00+03:00',
};
export const sampleBalanceTransactionPage: BalanceTransactionPage = {
  balance_transactions: [sampleRefundRow, samplePaymentRow],
  has_more: false,
  next_cursor: null,
};

/** The same page as `format=csv`: a byte-order mark, the field names, then one row each (RFC 4180, CRLF). */
const CSV_FIELDS = ['id', 'shop_id', 'type', 'amount', 'fee', 'net', 'balance_after', 'payment_link_id', 'refund_id', 'created_at'] as const;
export const sampleStatementCsv = `\ufeff${[
  CSV_FIELDS.join(','),
  ...sampleBalanceTransactionPage.balance_transactions.map((row) => CSV_FIELDS.map((f) => row[f] ?? '').join(',')),
].join('\r\n')}\r\n`;

/** A daily report: a payment, a partial refund of it, a late payment's arrival and its settlement, then the totals. */
export const sampleDailyReportCsv = `\ufeff${[
  'id,time,type,amount,fee,net,order_id,destination,status',
  '6985eade-2a4c-4e0b-9d61-0c3f1b8e2a10,2026-11-25T01:55:15+03:00,payment,1500.00,15.00,1485.00,order-1001,,paid',
  '8d3f1a6c-5b7e-4c2d-a1f0-9e8d7c6b5a41,2026-11-25T02:20:00+03:00,refund,-500.00,0.00,-500.00,order-1001,,succeeded',
  'c8d9e0f1-a2b3-4c4d-9e5f-6a7b8c9d0e1f,2026-11-25T10:04:12+03:00,unresolved_payment,1000.00,,,order-1002,,settled',
  'c8d9e0f1-a2b3-4c4d-9e5f-6a7b8c9d0e1f,2026-11-25T11:30:00+03:00,unresolved_payment_settled,1000.00,10.00,990.00,order-1002,,settled',
  ',,total,2000.00,25.00,1975.00,,,',
].join('\r\n')}\r\n`;

/** An overpayment's surplus of a crypto link, as recorded when the provider's callback arrived. */
export const sampleUnresolvedPayment: UnresolvedPaymentView = {
  id: 'c8d9e0f1-a2b3-4c4d-9e5f-6a7b8c9d0e1f',
  shop_id: 42,
  payment_link_id: LINK_ID,
  reason: 'overpaid',
  provider: 'heleket',
  gateway_payment_id: '9a1c2e3f-4b5d-4e6f-8a7b-9c0d1e2f3a4b',
  amount: '150.00',
  payer_currency: 'USDT',
  payer_crypto_amount: '20.35',
  status: 'unresolved',
  refund_id: null,
  created_at: '2026-11-26T10:00:00+03:00',
  resolved_at: null,
  livemode: true,
};

const PAYOUT_CREATED_AT = '2026-11-30T10:00:00+03:00';
const PAYOUT_PAID_AT = '2026-11-30T12:00:00+03:00';

/** A payout of 50,000.00 to a bank account, approved at once (under the approval threshold). */
export const samplePayout: Payout = {
  id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
  shop_id: 42,
  amount: '50000.00',
  fee: '0.00',
  currency: 'RUB',
  destination: { id: 'd2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f6a', type: 'bank_account', masked: '•••• 1234' },
  status: 'approved',
  description: 'November',
  failure_reason: null,
  created_by: 'e3f4a5b6-c7d8-4e9f-8a0b-1c2d3e4f5a6b',
  approved_by: null,
  created_at: PAYOUT_CREATED_AT,
  approved_at: PAYOUT_CREATED_AT,
  paid_at: null,
  livemode: true,
};

export const samplePayoutPage: PayoutPage = { payouts: [samplePayout], has_more: false, next_cursor: null };

export const samplePayoutDestination: PayoutDestination = {
  id: 'd2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f6a',
  type: 'bank_account',
  status: 'active',
  masked: '•••• 1234',
  network: null,
  livemode: true,
  created_by: 'e3f4a5b6-c7d8-4e9f-8a0b-1c2d3e4f5a6b',
  created_at: '2026-11-28T10:00:00+03:00',
  active_at: '2026-11-29T10:00:00+03:00',
};

const linkEventFields = {
  payment_link_id: LINK_ID,
  id: LINK_ID,
  shop_id: 42,
  order_id: 'order-1001',
  amount: '1500.00',
  merchant_credit: '1485.00',
};
const event = (id: string, created_at: string) => ({ event_id: `evt_${id}`, created_at, livemode: true });

/** One webhook body (and events API item) per event type. */
export const sampleEvents: { [T in EventType]: Extract<WebhookEvent, { event: T }> } = {
  'payment.succeeded': {
    event: 'payment.succeeded',
    ...event('21bd9aff-3f5b-4298-8335-61ff15c6e91c', PAID_AT),
    data: { ...linkEventFields, status: 'paid', paid_at: PAID_AT },
  },
  'payment.failed': {
    event: 'payment.failed',
    ...event('5f0e2d1c-4b3a-4c9d-8e7f-6a5b4c3d2e1f', PAID_AT),
    data: { ...linkEventFields, status: 'failed', failed_at: PAID_AT, failure_reason: 'provider_failed' },
  },
  'payment_link.canceled': {
    event: 'payment_link.canceled',
    ...event('9c8b7a6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', '2026-11-25T01:45:00+03:00'),
    data: { ...linkEventFields, status: 'canceled', canceled_at: '2026-11-25T01:45:00+03:00' },
  },
  'payment_link.expired': {
    event: 'payment_link.expired',
    ...event('0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d', '2026-11-26T01:40:00+03:00'),
    data: { ...linkEventFields, status: 'expired', expired_at: '2026-11-26T01:40:00+03:00' },
  },
  'refund.succeeded': {
    event: 'refund.succeeded',
    ...event('6e5d4c3b-2a19-4f8e-b7d6-c5b4a3928170', REFUNDED_AT),
    data: sampleSucceededRefund,
  },
  'refund.failed': {
    event: 'refund.failed',
    ...event('b1c2d3e4-f5a6-4b7c-9d8e-0f1a2b3c4d5e', REFUNDED_AT),
    data: { ...sampleRefund, status: 'failed', failure_reason: 'The payer account is closed', updated_at: REFUNDED_AT },
  },
  'payment.late_settled': {
    event: 'payment.late_settled',
    ...event('d4e5f6a7-b8c9-4d0e-a1f2-a3b4c5d6e7f8', '2026-11-26T10:00:00+03:00'),
    data: {
      ...linkEventFields,
      status: 'expired',
      late_payment_id: 'f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9',
      gateway_payment_id: 'sbp_7f3a91',
      settled_at: '2026-11-26T10:00:00+03:00',
    },
  },
  'unresolved_payment.created': {
    event: 'unresolved_payment.created',
    ...event('e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5c', '2026-11-26T10:00:00+03:00'),
    data: sampleUnresolvedPayment,
  },
  'unresolved_payment.settled': {
    event: 'unresolved_payment.settled',
    ...event('e2f3a4b5-c6d7-4e8f-9a0b-1c2d3e4f5a6d', '2026-11-26T11:00:00+03:00'),
    data: { ...sampleUnresolvedPayment, status: 'settled', resolved_at: '2026-11-26T11:00:00+03:00' },
  },
  'unresolved_payment.refunded': {
    event: 'unresolved_payment.refunded',
    ...event('e3f4a5b6-c7d8-4e9f-8b1c-2d3e4f5a6b7e', '2026-11-26T11:00:00+03:00'),
    data: { ...sampleUnresolvedPayment, status: 'refunded', refund_id: REFUND_ID, resolved_at: '2026-11-26T11:00:00+03:00' },
  },
  'payout.created': { event: 'payout.created', ...event('a7b8c9d0-e1f2-4a3b-8c4d-5e6f7a8b9c0d', PAYOUT_CREATED_AT), data: samplePayout },
  'payout.paid': {
    event: 'payout.paid',
    ...event('a8b9c0d1-e2f3-4a4b-9c5d-6e7f8a9b0c1e', PAYOUT_PAID_AT),
    data: { ...samplePayout, status: 'paid', paid_at: PAYOUT_PAID_AT },
  },
  'payout.failed': {
    event: 'payout.failed',
    ...event('a9b0c1d2-e3f4-4a5b-8c6d-7e8f9a0b1c2f', PAYOUT_PAID_AT),
    data: { ...samplePayout, status: 'failed', failure_reason: 'The recipient account is closed' },
  },
  'payout.canceled': {
    event: 'payout.canceled',
    ...event('b0c1d2e3-f4a5-4b6c-9d7e-8f9a0b1c2d3a', PAYOUT_PAID_AT),
    data: { ...samplePayout, status: 'rejected', failure_reason: 'Not agreed with finance' },
  },
};

export const sampleEventPage: WebhookEventPage = {
  events: [sampleEvents['refund.succeeded'], sampleEvents['payment.succeeded']],
  has_more: false,
  next_cursor: null,
};

export const sampleWebhookTest = {
  event: 'webhook.test',
  event_id: 'evt_7c0e3f6a-1b2d-4e5f-8a9b-0c1d2e3f4a5b',
  created_at: PAID_AT,
  livemode: true,
  data: { shop_id: 42, sent_at: PAID_AT },
} as const;

/** A link's attempts: SBP first, then USDT on Tron, confirming at Heleket. */
export const sampleAttempts: PaymentAttemptList = {
  attempts: [
    {
      n: 1,
      order_id: `${sampleLink.id}-1`,
      provider: 'raiffeisen_sbp',
      method: 'sbp',
      network: null,
      gateway_payment_id: 'AS1000670LSS7DN18SJQDNP4B05KLJL2',
      state: 'superseded',
      provider_status: null,
      created_at: AT,
      updated_at: AT,
    },
    {
      n: 2,
      order_id: `${sampleLink.id}-2`,
      provider: 'heleket',
      method: 'crypto',
      network: 'USDT-TRC20',
      gateway_payment_id: '8b03432e-385b-4670-8d06-064591096795',
      state: 'pending',
      provider_status: 'confirm_check',
      created_at: AT,
      updated_at: AT,
    },
  ],
};

export const sampleMember: MemberView = {
  user_id: '7b2d9e4f-3a1c-4e8b-9d6f-0c5a2e7b1d43',
  email: 'owner@shop.example',
  role: 'owner',
  joined_at: '2026-11-01T12:00:00+03:00',
};

export const sampleInvitation: InvitationView = {
  id: '1c9e7a5b-3d2f-4b8e-a6c4-2e0f8d6b4a21',
  email: 'accountant@shop.example',
  role: 'finance',
  invited_by: '7b2d9e4f-3a1c-4e8b-9d6f-0c5a2e7b1d43',
  created_at: '2026-11-20T10:00:00+03:00',
  expires_at: '2026-11-23T10:00:00+03:00',
};

export const sampleLoginChallenge = {
  two_factor_required: true as const,
  challenge: 'Yq3Lw8Nf2Kd6Rt1Hx9Bm4Vc7Zs5Pj0Ga3Ue8Wi2Ob6',
  methods: ['totp' as const, 'recovery_code' as const],
};

export const sampleTotpEnrollment = {
  secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  otpauth_uri:
    'otpauth://totp/Payment%20links:owner%40shop.example?issuer=Payment%20links&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
  qr_data_url: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=',
};

export const sampleRecoveryCodes = {
  recovery_codes: Array.from({ length: 10 }, (_, i) => `k7qm-${String(i).padStart(4, 'x')}-p2rt-zd4w`),
};

export const sampleAccountSettings = {
  merchant_id: '3f6c2a8e-1d4b-4c7e-9a2f-5b8d0e1c3a7f',
  name: 'Shop Example LLC',
  require_two_factor: true,
  require_payout_approval: false,
};

export const samplePasskey: PasskeyView = {
  id: '5d8a1f3e-7c2b-4e9d-b1a6-3f0e9c7d5b24',
  name: 'Work laptop',
  created_at: '2026-11-20T10:00:00+03:00',
  last_used_at: '2026-11-21T09:15:00+03:00',
};

/** A credential id as an authenticator makes it: opaque bytes, base64url. */
const sampleCredentialId = 'X0MyrbH2l1p4cC2VbQ8xkN3tTqYh5s7wZ9aJrE6uFgI';

/** What `generateRegistrationOptions` of @simplewebauthn/server answers, for `startRegistration` in the browser. */
export const samplePasskeyRegistrationOptions = {
  challenge: 'q7X2mNc9LrT4vB8yKp1sWd6gHf3jZa0e',
  rp: { name: 'Payment links', id: 'pay.example.com' },
  user: { id: 'ey2eTzocTouduW9sDC4bHQ', name: 'owner@shop.example', displayName: 'owner@shop.example' },
  pubKeyCredParams: [
    { alg: -7, type: 'public-key' },
    { alg: -8, type: 'public-key' },
    { alg: -257, type: 'public-key' },
  ],
  timeout: 300000,
  attestation: 'none',
  excludeCredentials: [{ id: sampleCredentialId, type: 'public-key', transports: ['internal', 'hybrid'] }],
  authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred', requireResidentKey: false },
  extensions: { credProps: true },
  hints: [],
};

/** What `startRegistration` answers in the browser (shortened). */
export const samplePasskeyRegistrationResponse = {
  id: sampleCredentialId,
  rawId: sampleCredentialId,
  type: 'public-key',
  response: {
    clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoicTdYMm1OYzlMclQ0dkI4eUtwMXNXZDZnSGYzalphMGUifQ',
    attestationObject: 'o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVjF',
    transports: ['internal', 'hybrid'],
  },
  authenticatorAttachment: 'platform',
  clientExtensionResults: { credProps: { rk: true } },
};

/** What `generateAuthenticationOptions` answers, for `startAuthentication` in the browser. */
export const samplePasskeyAuthenticationOptions: PasskeyAuthenticationOptions = {
  rpId: 'pay.example.com',
  challenge: 'Vb3kP9wQ1xR7nT2mC5sL8dF0gH4jK6aZ',
  timeout: 300000,
  userVerification: 'preferred',
  allowCredentials: [{ id: sampleCredentialId, type: 'public-key', transports: ['internal', 'hybrid'] }],
};
