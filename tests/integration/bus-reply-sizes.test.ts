import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { NatsConnection } from 'nats';
import { connectNats, DEFAULT_MAX_PAYLOAD, maxPayloadOf, replyBytes } from '@pl/bus';
import { PUBLIC_BASE_URL_MAX } from '@pl/config';
import {
  PAYOUT_SCHEDULE_PAGE_MAX,
  RECIPIENT_NAME_MAX_LENGTH,
  ATTEMPT_ERROR_MAX_LENGTH,
  CRYPTO_NETWORKS,
  CURSOR_MAX_LENGTH,
  DAILY_REPORT_PAGE_MAX,
  DELIVERY_ATTEMPTS_SHOWN,
  EVENT_TYPES,
  formatMoscow,
  paymentLink,
  PAYMENT_SYNC_REPORT_MAX,
  PAYMENT_SYNC_TEXT_MAX,
  publicEventId,
  REFUND_DESTINATION_MAX_LENGTH,
  REFUND_FAILURE_REASON_MAX_LENGTH,
  PAYOUT_DESCRIPTION_MAX_LENGTH,
  PAYOUT_REASON_MAX_LENGTH,
  type Payout,
  REFUND_REASON_MAX_LENGTH,
  returnUrlProblem,
  subjects,
  SUMMARY_DAYS_MAX,
  type BalanceTransaction,
  type Refund,
  type SubjectContract,
  type WebhookEvent,
} from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import { parseExchangeRates, SandboxProvider } from '@pl/providers';
import type { z } from 'zod';
import {
  ATTEMPTS_SHOWN,
  toBuyerLinkView,
  toPaymentAttemptList,
  toPaymentLink,
  toPaymentLinkPageJson,
  listedLink,
  type LinkRecord,
} from '@pl/links/testing';
import { toWebhookDelivery, type AttemptRecord, type DeliveryRecord } from '@pl/notifier/testing';
import {
  CASHIER_KEY_PREFIX,
  fitShopPage,
  toMerchantShop,
  toMerchantShopPage,
  toShopView,
  toStandardWebhooksSecret,
  type Shop,
} from '@pl/shops/testing';

/**
 * The worst case of every NATS reply, built by the services' own view functions from records whose every
 * field is at the maximum the contracts and docs/product-decisions.md allow, in the characters that cost the most bytes
 * once serialized, and compared with the largest message NATS takes.
 */

/** Of a 4-byte character and one JSON escapes as \u00XX, whichever is larger once serialized (per code point). */
const HEAVY = ['\u{10FFFD}', '\u0001'].reduce((a, b) => (Buffer.byteLength(JSON.stringify(b)) > Buffer.byteLength(JSON.stringify(a)) ? b : a));
const heavy = (codePoints: number): string => HEAVY.repeat(codePoints);
/** Printable ASCII that costs the most once serialized (JSON escapes it as \"). */
const HEAVY_ASCII = '"';

// docs/product-decisions.md and the contracts
const ORDER_ID_MAX = 128;
const DESCRIPTION_MAX = 1024;
const LIST_LIMIT_MAX = 100;
const SHOP_NAME_MAX = 200;
const WEBHOOK_SECRET_MAX = 256;
const WEBHOOK_URL_MAX = 2048;
const RETURN_URL_MAX = 2048;
const MAX_KOPECKS = 9_999_999_999;
/** A fee of 10000 bps paid by the client: the buyer pays twice the amount. */
const MAX_PAYER_KOPECKS = 2 * MAX_KOPECKS;

/**
 * Budgets of what the payment provider adapter writes (ASCII; the sandbox's real outputs are checked against
 * them below); the deployment's PUBLIC_BASE_URL is bounded by its config (PUBLIC_BASE_URL_MAX).
 */
const PROVIDER = { name: 64, paymentId: 200, depositAddress: 128, qr: 512, currency: 16, network: 16, cryptoAmount: 40 };

/** A normalized webhook URL percent-encodes what is not ASCII: up to 9 bytes (`%E4%B8%AD`) per UTF-16 unit of the 2048 allowed. */
const WEBHOOK_URL_NORMALIZED_MAX = WEBHOOK_URL_MAX * 9;
/** An int4 column at its largest. */
const INT4_MAX = 2_147_483_647;

/**
 * A return_url is kept as the merchant sent it and holds no control character (which JSON escapes to 6 bytes), so
 * its costliest code point is a 4-byte one, which the URL parser takes in a path.
 */
const RETURN_URL_PREFIX = 'https://s/';
const fullReturnUrl = RETURN_URL_PREFIX + '\u{10FFFD}'.repeat(RETURN_URL_MAX - RETURN_URL_PREFIX.length);

const baseUrl = `https://${'p'.repeat(PUBLIC_BASE_URL_MAX - 'https://'.length)}`;
const latest = new Date('9999-12-30T20:59:59.999Z');

const fullLink = (): LinkRecord => ({
  id: randomUUID(),
  merchantId: randomUUID(),
  shopId: Number.MAX_SAFE_INTEGER,
  // `false` is the longer of the two in JSON.
  livemode: false,
  orderId: heavy(ORDER_ID_MAX),
  description: heavy(DESCRIPTION_MAX),
  returnUrl: fullReturnUrl,
  currency: 'RUB',
  amount: MAX_KOPECKS,
  feeBps: 10_000,
  feePercentBp: 10_000,
  cryptoBps: 10_000,
  sbpBps: 10_000,
  feePayer: 'merchant',
  payerAmount: MAX_PAYER_KOPECKS,
  merchantCredit: MAX_PAYER_KOPECKS,
  platformRevenue: MAX_PAYER_KOPECKS,
  amountRefunded: MAX_KOPECKS,
  status: 'canceled',
  // The longest reason; a real canceled link has none, but the worst reply fills every field.
  failureReason: 'provider_failed',
  gatewayProvider: 'p'.repeat(PROVIDER.name),
  gatewayPaymentId: 'i'.repeat(PROVIDER.paymentId),
  toCurrency: 'C'.repeat(PROVIDER.currency),
  network: 'N'.repeat(PROVIDER.network),
  depositAddress: 'a'.repeat(PROVIDER.depositAddress),
  payerCurrency: 'C'.repeat(PROVIDER.currency),
  payerCryptoAmount: '9'.repeat(PROVIDER.cryptoAmount),
  qr: 'q'.repeat(PROVIDER.qr),
  expiresAt: latest,
  paidAt: latest,
  createdAt: latest,
  createdAtMicros: BigInt(latest.getTime()) * 1000n + 999n,
  updatedAt: latest,
});

const fullShop = (): Shop => ({
  id: Number.MAX_SAFE_INTEGER,
  merchantId: randomUUID(),
  name: heavy(SHOP_NAME_MAX),
  status: 'rejected',
  feePayer: 'merchant',
  cryptoBps: 10_000,
  sbpBps: 10_000,
  webhookUrl: `https://${'u'.repeat(WEBHOOK_URL_NORMALIZED_MAX - 'https://'.length)}`,
  hasWebhookSecret: true,
  webhookEvents: [...EVENT_TYPES],
  paymentMethods: { sbp: true, crypto_networks: [...CRYPTO_NETWORKS] },
  previousSecretValidUntil: latest,
  payoutSchedules: {
    live: { interval: 'weekly', destinationId: randomUUID(), minimumKopecks: Number.MAX_SAFE_INTEGER },
    test: { interval: 'weekly', destinationId: randomUUID(), minimumKopecks: Number.MAX_SAFE_INTEGER },
  },
  createdAt: latest,
  updatedAt: latest,
});

/** One schedule as the scheduler's page carries it, at its widest. */
const fullSchedule = () => ({
  shop_id: Number.MAX_SAFE_INTEGER,
  merchant_id: randomUUID(),
  mode: 'live' as const,
  interval: 'weekly' as const,
  destination_id: randomUUID(),
  minimum_kopecks: Number.MAX_SAFE_INTEGER,
  set_at: latest.toISOString(),
});

/** Every method offered, and a part payment with the longest remainder a settle command carries. */
const HEAVIEST_CHECKOUT = {
  methods: { sbp: true, crypto_networks: [...CRYPTO_NETWORKS] },
  progress: { status: 'partially_paid' as const, remainingCryptoAmount: HEAVY_ASCII.repeat(64) },
};

/** A delivery resent again and again: more attempts than a reply shows, each with the longest error. */
const fullDelivery = (): DeliveryRecord => {
  const attempts: AttemptRecord[] = Array.from({ length: DELIVERY_ATTEMPTS_SHOWN + 8 }, (_, i) => ({
    series: Math.floor(i / 8) + 1,
    attempt: 8,
    at: latest,
    durationMs: INT4_MAX,
    statusCode: INT4_MAX,
    error: HEAVY_ASCII.repeat(ATTEMPT_ERROR_MAX_LENGTH),
  }));
  return {
    id: randomUUID(),
    seq: BigInt(Number.MAX_SAFE_INTEGER),
    webhookId: `whk_${randomUUID()}`,
    event: 'payment.succeeded',
    merchantId: randomUUID(),
    shopId: Number.MAX_SAFE_INTEGER,
    paymentLinkId: randomUUID(),
    livemode: false,
    status: 'succeeded',
    series: INT4_MAX,
    attemptsMade: 8,
    attempts,
    attemptsOmitted: INT4_MAX,
  };
};

/**
 * Ledger sums are bigint: no balance or statement amount is longer than the largest one, signed (an upper bound of
 * every money field of the balance and its transactions).
 */
const LEDGER_MONEY_MAX = formatKopecks(-(2n ** 63n - 1n));
/** The settle command's bound on a provider's refund id (the sandbox writes `sbr_<uuid>`). */
const GATEWAY_REFUND_ID_MAX = 200;
const fullCursor = (): string => 'c'.repeat(CURSOR_MAX_LENGTH);

const fullRefund = (): Refund => ({
  id: randomUUID(),
  payment_link_id: randomUUID(),
  shop_id: Number.MAX_SAFE_INTEGER,
  amount: formatKopecks(MAX_KOPECKS),
  currency: 'RUB',
  status: 'succeeded',
  reason: heavy(REFUND_REASON_MAX_LENGTH),
  destination: HEAVY_ASCII.repeat(REFUND_DESTINATION_MAX_LENGTH),
  gateway_refund_id: HEAVY_ASCII.repeat(GATEWAY_REFUND_ID_MAX),
  failure_reason: heavy(REFUND_FAILURE_REASON_MAX_LENGTH),
  late_payment_id: randomUUID(),
  livemode: false,
  created_at: formatMoscow(latest),
  updated_at: formatMoscow(latest),
});

const fullBalanceTransaction = (): BalanceTransaction => ({
  id: randomUUID(),
  shop_id: Number.MAX_SAFE_INTEGER,
  type: 'refund_failed',
  amount: LEDGER_MONEY_MAX,
  fee: LEDGER_MONEY_MAX,
  net: LEDGER_MONEY_MAX,
  balance_after: LEDGER_MONEY_MAX,
  payment_link_id: randomUUID(),
  refund_id: randomUUID(),
  // A statement row names a link or a payout, never both; the id is the same size either way.
  payout_id: randomUUID(),
  created_at: formatMoscow(latest),
});

/** A payout with every text at its bound: the destination's masked form and the description. */
const fullPayout = (): Payout => ({
  id: randomUUID(),
  shop_id: Number.MAX_SAFE_INTEGER,
  amount: LEDGER_MONEY_MAX,
  fee: LEDGER_MONEY_MAX,
  currency: 'RUB',
  destination: { id: randomUUID(), type: 'crypto_address', masked: heavy(40) },
  status: 'failed',
  description: heavy(PAYOUT_DESCRIPTION_MAX_LENGTH),
  failure_reason: heavy(PAYOUT_REASON_MAX_LENGTH),
  created_by: randomUUID(),
  approved_by: randomUUID(),
  created_at: formatMoscow(latest),
  approved_at: formatMoscow(latest),
  paid_at: formatMoscow(latest),
  livemode: false,
});

/** Of the event bodies, a refund's is the largest (its reason and failure reason outweigh a link's order_id). */
const fullEvent = (): WebhookEvent => ({
  event: 'refund.succeeded',
  event_id: publicEventId(randomUUID()),
  created_at: formatMoscow(latest),
  livemode: false,
  data: fullRefund(),
});

const times = <T>(n: number, make: () => T): T[] => Array.from({ length: n }, make);

/** An unresolved payment at its widest: a long provider payment id and coin amount, every date set. */
const fullUnresolved = () => ({
  id: randomUUID(),
  shop_id: Number.MAX_SAFE_INTEGER,
  payment_link_id: randomUUID(),
  reason: 'underpaid' as const,
  provider: heavy(64),
  gateway_payment_id: heavy(200),
  amount: LEDGER_MONEY_MAX,
  payer_currency: heavy(16),
  payer_crypto_amount: heavy(64),
  status: 'refunded' as const,
  refund_id: randomUUID(),
  created_at: formatMoscow(latest),
  resolved_at: formatMoscow(latest),
  livemode: false,
});

type AnySubject = SubjectContract<z.ZodType, z.ZodType>;

/** The largest reply data of every request-reply subject. */
const worstReplies: Record<keyof typeof subjects, () => unknown> = {
  linksCreate: () => toPaymentLink(fullLink(), baseUrl),
  linksGet: () => toPaymentLink(fullLink(), baseUrl),
  linksCancel: () => toPaymentLink(fullLink(), baseUrl),
  linksCreateOnce: () => ({ link: toPaymentLink(fullLink(), baseUrl), replayed: true }),
  linksCancelOnce: () => ({ link: toPaymentLink(fullLink(), baseUrl), replayed: true }),
  linksSettle: () => toPaymentLink(fullLink(), baseUrl),
  // The service cuts a page of links at a byte budget (a return_url can be long), so the page is as it fits it.
  linksList: () =>
    JSON.parse(toPaymentLinkPageJson({ items: times(LIST_LIMIT_MAX, () => listedLink(fullLink(), baseUrl)), hasMore: true })) as unknown,
  linksPublicGet: () => toBuyerLinkView(fullLink(), heavy(SHOP_NAME_MAX), baseUrl, HEAVIEST_CHECKOUT),
  linksSelect: () => toBuyerLinkView(fullLink(), heavy(SHOP_NAME_MAX), baseUrl, HEAVIEST_CHECKOUT),
  linksSimulate: () => toBuyerLinkView(fullLink(), heavy(SHOP_NAME_MAX), baseUrl, HEAVIEST_CHECKOUT),
  // The newest attempts only, each with the longest provider word the reply keeps (a refusal's message is cut to 200).
  linksAttemptsList: () =>
    toPaymentAttemptList(
      times(ATTEMPTS_SHOWN, () => ({
        n: INT4_MAX,
        orderId: `${randomUUID()}-${INT4_MAX}`,
        provider: heavy(PROVIDER.name),
        method: 'crypto' as const,
        networkAsked: 'USDT-TRC20',
        gatewayPaymentId: heavy(PROVIDER.paymentId),
        state: 'ended_unpaid' as const,
        providerStatus: heavy(1000),
        createdAt: latest,
        updatedAt: latest,
      })),
    ),
  shopsGet: () => toShopView(fullShop()),
  shopsByCashierKey: () => toShopView(fullShop()),
  shopsWebhookTarget: () => ({
    shop_id: Number.MAX_SAFE_INTEGER,
    url: fullShop().webhookUrl,
    secret: heavy(WEBHOOK_SECRET_MAX),
    previous_secret: heavy(WEBHOOK_SECRET_MAX),
    webhook_events: [...EVENT_TYPES],
  }),
  // The service cuts a page of shops at a byte budget (their webhook URLs can be long), so the page is as it fits it.
  shopsList: () => toMerchantShopPage(fitShopPage(times(LIST_LIMIT_MAX + 1, fullShop), LIST_LIMIT_MAX), 'live'),
  shopsRead: () => toMerchantShop(fullShop(), 'live'),
  shopsCreate: () => toMerchantShop(fullShop(), 'live'),
  shopsUpdate: () => toMerchantShop(fullShop(), 'live'),
  shopsSetPayoutSchedule: () => toMerchantShop(fullShop(), 'live'),
  shopsPayoutSchedules: () => ({ schedules: times(PAYOUT_SCHEDULE_PAGE_MAX, fullSchedule) }),
  // A bank account's details at their longest (a crypto address's are shorter).
  gatewayPayoutContext: () => ({
    on_hold: false,
    requires_approval: false,
    destination: {
      id: randomUUID(),
      type: 'bank_account',
      masked: heavy(200),
      details: {
        recipient_name: HEAVY_ASCII.repeat(RECIPIENT_NAME_MAX_LENGTH),
        inn: HEAVY_ASCII.repeat(12),
        kpp: HEAVY_ASCII.repeat(9),
        bik: HEAVY_ASCII.repeat(9),
        account: HEAVY_ASCII.repeat(20),
      },
    },
    destination_active: true,
  }),
  // The service writes 43 base64url characters; an operator's secret (up to 256 of any) bounds it from above.
  shopsRotateSecret: () => ({
    webhook_secret: heavy(WEBHOOK_SECRET_MAX),
    standard_webhooks_secret: toStandardWebhooksSecret(heavy(WEBHOOK_SECRET_MAX)),
    previous_valid_until: formatMoscow(latest),
  }),
  shopsReissueCashierKey: () => ({ cashier_key: `${CASHIER_KEY_PREFIX}${'A'.repeat(43)}`, mode: 'test' }),
  deliveriesList: () => ({
    deliveries: times(LIST_LIMIT_MAX, fullDelivery).map(toWebhookDelivery),
    has_more: true,
    next_cursor: Buffer.from(`v1:${Number.MAX_SAFE_INTEGER}`).toString('base64url'),
  }),
  deliveriesResend: () => toWebhookDelivery(fullDelivery()),
  deliveriesTest: () => toWebhookDelivery(fullDelivery()),
  refundsCreate: () => ({ refund: fullRefund(), replayed: false }),
  refundsGet: fullRefund,
  refundsList: () => ({ refunds: times(LIST_LIMIT_MAX, fullRefund), has_more: true, next_cursor: fullCursor() }),
  refundsSettle: fullRefund,
  refundsSimulate: fullRefund,
  payoutsCreate: () => ({ payout: fullPayout(), replayed: false }),
  payoutsGet: fullPayout,
  payoutsList: () => ({ payouts: times(LIST_LIMIT_MAX, fullPayout), has_more: true, next_cursor: fullCursor() }),
  payoutsDecide: fullPayout,
  payoutsSimulate: fullPayout,
  payoutsNext: () => ({ interval: 'weekly', scheduled_at: formatMoscow(latest), amount: LEDGER_MONEY_MAX, minimum: LEDGER_MONEY_MAX }),
  payoutsSettleHeleket: fullPayout,
  payoutsSync: () => ({
    id: randomUUID(),
    provider_payout_id: heavy(200),
    provider_status: heavy(64),
    status_before: heavy(64),
    status_after: heavy(64),
    created: true,
    error: heavy(500),
  }),
  unresolvedGet: () => fullUnresolved(),
  unresolvedResolve: () => fullUnresolved(),
  unresolvedList: () => ({ unresolved_payments: times(LIST_LIMIT_MAX, fullUnresolved), has_more: true, next_cursor: fullCursor() }),
  // The longest window, every figure at its widest (a count is a link count, money the ledger's widest).
  reportsSummary: () => {
    const figures = {
      gross_volume: LEDGER_MONEY_MAX,
      paid_count: Number.MAX_SAFE_INTEGER,
      created_count: Number.MAX_SAFE_INTEGER,
      created_paid_count: Number.MAX_SAFE_INTEGER,
      share_paid: 0.3333,
      refunds: LEDGER_MONEY_MAX,
    };
    return {
      shop_id: Number.MAX_SAFE_INTEGER,
      currency: 'RUB',
      livemode: false,
      from: '2026-09-01',
      to: '2026-11-29',
      days: times(SUMMARY_DAYS_MAX, () => ({ date: '2026-11-29', ...figures })),
      totals: figures,
    };
  },
  balanceGet: () => ({
    shop_id: Number.MAX_SAFE_INTEGER,
    currency: 'RUB',
    livemode: false,
    balance: LEDGER_MONEY_MAX,
    available: LEDGER_MONEY_MAX,
    pending: LEDGER_MONEY_MAX,
    refund_reserve: LEDGER_MONEY_MAX,
    updated_at: formatMoscow(latest),
  }),
  balanceTransactionsList: () => ({
    balance_transactions: times(LIST_LIMIT_MAX, fullBalanceTransaction),
    has_more: true,
    next_cursor: fullCursor(),
  }),
  // A page of the daily report at its largest size; a masked destination (payouts, to come) within 64 code points.
  reportsDaily: () => ({
    rows: times(DAILY_REPORT_PAGE_MAX, () => ({
      id: randomUUID(),
      type: 'unresolved_payment_refund_failed',
      at: formatMoscow(latest),
      amount: LEDGER_MONEY_MAX,
      fee: LEDGER_MONEY_MAX,
      net: LEDGER_MONEY_MAX,
      order_id: heavy(ORDER_ID_MAX),
      destination: heavy(64),
      status: 'unresolved',
    })),
    has_more: true,
    next_cursor: fullCursor(),
  }),
  eventsList: () => ({ events: times(LIST_LIMIT_MAX, fullEvent), has_more: true, next_cursor: fullCursor() }),
  eventsGet: fullEvent,
  linksSync: () => ({
    link_id: randomUUID(),
    attempts_read: INT4_MAX,
    refunds_read: INT4_MAX,
    attempts: times(PAYMENT_SYNC_REPORT_MAX, () => ({
      order_id: heavy(64),
      provider: heavy(64),
      gateway_payment_id: heavy(200),
      provider_status: heavy(PAYMENT_SYNC_TEXT_MAX),
      state_before: heavy(64),
      state_after: heavy(64),
      link_status_before: heavy(64),
      link_status_after: heavy(64),
      canceled: true,
      done: false,
      error: heavy(PAYMENT_SYNC_TEXT_MAX),
    })),
    refunds: times(PAYMENT_SYNC_REPORT_MAX, () => ({
      id: randomUUID(),
      provider: heavy(64),
      gateway_refund_id: heavy(200),
      provider_status: heavy(PAYMENT_SYNC_TEXT_MAX),
      status_before: heavy(64),
      status_after: heavy(64),
      done: false,
      error: heavy(PAYMENT_SYNC_TEXT_MAX),
    })),
    changed: true,
  }),
};

/** Every leaf of a reply that is null: a field the worst case left unset. */
function nullPaths(value: unknown, path = ''): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullPaths(v, `${path}[${i}]`)).slice(0, 5);
  if (typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => nullPaths(v, `${path}.${k}`));
  return [];
}

describe('worst-case NATS reply sizes', () => {
  let nc: NatsConnection;
  const sizes = new Map<string, number>();

  beforeAll(async () => {
    nc = await connectNats(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 'reply-size-test', pino({ level: 'silent' }));
  });

  afterAll(async () => {
    await nc?.close();
    const limit = Math.min(maxPayloadOf(nc), DEFAULT_MAX_PAYLOAD);
    const table = [...sizes].map(([name, bytes]) => `  ${name.padEnd(28)} ${String(bytes).padStart(9)} B  ${((100 * bytes) / limit).toFixed(1)} %`);
    process.stdout.write(`worst-case reply sizes (limit ${limit} B):\n${table.join('\n')}\n`);
  });

  it('has a worst case for every request-reply subject', () => {
    expect(Object.keys(worstReplies).sort()).toEqual(Object.keys(subjects).sort());
  });

  it('serializes the heavy character to the most bytes a code point can cost', () => {
    expect(Buffer.byteLength(JSON.stringify(heavy(10)))).toBe(2 + 10 * 6);
    expect(nullPaths(toPaymentLink(fullLink(), baseUrl))).toEqual([]);
    expect(Object.keys(toPaymentLink(fullLink(), baseUrl)).sort()).toEqual(Object.keys(paymentLink.shape).sort());
    // The longest return_url a create takes, at 4 bytes per code point.
    expect(returnUrlProblem(fullReturnUrl, { allowHttp: false })).toBeNull();
    expect(Array.from(fullReturnUrl)).toHaveLength(RETURN_URL_MAX);
    expect(Buffer.byteLength(JSON.stringify(fullReturnUrl))).toBe(2 + RETURN_URL_PREFIX.length + 4 * (RETURN_URL_MAX - RETURN_URL_PREFIX.length));
  });

  it.each(Object.keys(subjects) as (keyof typeof subjects)[])('%s: the fullest reply keeps its contract and fits in one message', (key) => {
    const subject = subjects[key] as AnySubject;
    const data = worstReplies[key]();
    // Every field filled: a field added to a reply later must be given its maximum here too.
    expect(nullPaths(data)).toEqual([]);
    expect(subject.response.safeParse(data).success).toBe(true);
    const bytes = replyBytes({ ok: true, data }).length;
    sizes.set(subject.name, bytes);
    // The server's own limit, and NATS's default for a server configured otherwise.
    expect(bytes).toBeLessThanOrEqual(maxPayloadOf(nc));
    expect(bytes).toBeLessThanOrEqual(DEFAULT_MAX_PAYLOAD);
  });

  it('keeps the sandbox provider within the budgets the worst case assumes, even at the largest amount and the lowest rates', async () => {
    const sandbox = new SandboxProvider({ rates: parseExchangeRates('USDT=0.01,BTC=0.01,ETH=0.01,TON=0.01'), callbackSecret: 's'.repeat(32) });
    const requests = [...CRYPTO_NETWORKS.map((network) => ({ method: 'crypto' as const, network })), { method: 'sbp' as const, network: null }];
    for (const r of requests) {
      const linkId = randomUUID();
      const p = await sandbox.createPayment(
        {
          orderId: `${linkId}-1`,
          linkId,
          payerAmountKopecks: MAX_PAYER_KOPECKS,
          description: null,
          merchantOrderId: null,
          expiresAt: new Date(),
          returnUrl: null,
          ...r,
        },
        { timeoutMs: 1000 },
      );
      expect(sandbox.name.length).toBeLessThanOrEqual(PROVIDER.name);
      expect(p.gatewayPaymentId.length).toBeLessThanOrEqual(PROVIDER.paymentId);
      expect(p.depositAddress.length).toBeLessThanOrEqual(PROVIDER.depositAddress);
      expect(p.qr.length).toBeLessThanOrEqual(PROVIDER.qr);
      expect([p.toCurrency, p.payerCurrency].every((c) => c.length <= PROVIDER.currency)).toBe(true);
      expect(p.network.length).toBeLessThanOrEqual(PROVIDER.network);
      expect((p.payerCryptoAmount ?? '').length).toBeLessThanOrEqual(PROVIDER.cryptoAmount);
      // ASCII that JSON writes as it is: one byte per character.
      expect(JSON.stringify(p)).toMatch(/^[\x20-\x7e]*$/);
    }
  });
});
