import { z } from 'zod';
import {
  apiKeyList,
  apiKeyView,
  apiKeyWithSecret,
  auditEventPage,
  balance,
  balanceQuery,
  balanceTransactionPage,
  buyerLinkView,
  cancelLinkBody,
  changePasswordBody,
  createApiKeyBody,
  createLinkBody,
  createRefundBody,
  createShopBody,
  emptyBody,
  listAuditEventsQuery,
  listBalanceTransactionsQuery,
  listBalanceTransactionsSessionQuery,
  listDeliveriesQuery,
  listEventsQuery,
  listLinksQuery,
  listRefundsQuery,
  listShopsQuery,
  loginBody,
  loginResponse,
  merchantShop,
  merchantShopPage,
  meView,
  paymentLink,
  paymentLinkList,
  providerCallbackBody,
  providerRefundCallbackBody,
  refund,
  refundPage,
  reissueApiKeyBody,
  reissueCashierKeyBody,
  reissuedCashierKey,
  rotatedSecret,
  rotateSecretBody,
  selectMethodBody,
  simulatePaymentBody,
  simulateRefundBody,
  updateShopBody,
  uuid,
  webhookDelivery,
  webhookDeliveryList,
  webhookEvent,
  webhookEventPage,
  listUnresolvedQuery,
  refundUnresolvedBody,
  settleUnresolvedBody,
  unresolvedPayment,
  unresolvedPaymentPage,
} from '@pl/contracts';
import type { ErrorCode } from '@pl/errors';
import * as s from './samples';
import { callbackReceived, openApiDocumentShape } from './schemas';

/** Who may call an operation: the three credentials of the API, or nobody in particular. */
export type Auth = 'apiKey' | 'cashier' | 'session' | 'cashierOrSession' | 'none';

export interface OperationSpec {
  method: 'get' | 'post' | 'patch';
  /** OpenAPI form: `/merchant/v1/payment-links/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: Tag;
  auth: Auth;
  /** The route's id parameter; an id that names nothing (malformed included) is 404. */
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  /** A JSON body; `optional`: an absent or empty body counts as `{}` (cancel, resend, rotate...). */
  body?: { schema: z.ZodType; optional?: boolean; example: unknown };
  /** `replay`: a repeat answers the first result; `secret`: a repeat of a success is 409, never the secret again. */
  idempotency?: 'replay' | 'secret';
  success: {
    status: number;
    description: string;
    schema?: z.ZodType;
    example?: unknown;
    html?: boolean;
    setsCookie?: boolean;
    /** A non-JSON, non-HTML answer (a static asset): each media type it may have, with an example (binary: none). */
    /** With `schema`: other media types the same answer may take (a CSV statement), each with an example. */
    files?: readonly { mediaType: string; example?: string }[];
  };
  /** Route-specific error codes; the ones every route of its kind can answer are added by `errorCodesOf`. */
  errors: readonly ErrorCode[];
  /** Answers errors as an HTML page (the buyer's checkout pages). */
  htmlErrors?: boolean;
  /** Needs no other service: no 503. */
  local?: boolean;
  /** Counted by a rate limiter (every authenticated route, and the buyer's select and the login by address). */
  rateLimited?: boolean;
}

export const TAGS = {
  links: 'Payment links',
  refunds: 'Refunds',
  unresolved: 'Unresolved payments',
  balance: 'Balance',
  events: 'Events',
  shops: 'Shops',
  deliveries: 'Webhook deliveries',
  auth: 'Sessions and account',
  apiKeys: 'API keys',
  audit: 'Audit log',
  checkout: 'Checkout',
  callbacks: 'Provider callbacks',
  meta: 'Documentation and dashboard',
} as const;
type Tag = (typeof TAGS)[keyof typeof TAGS];

const linkId = z.object({ id: uuid.meta({ description: 'The payment link id (UUID).', examples: [s.sampleLink.id] }) });
const shopId = z.object({
  id: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/)
    .meta({ description: 'The shop id.', examples: ['42'] }),
});
const deliveryId = z.object({ id: uuid.meta({ description: 'The webhook delivery id (UUID).', examples: [s.sampleDelivery.id] }) });
const apiKeyId = z.object({ id: uuid.meta({ description: 'The API key id (UUID).', examples: [s.sampleApiKey.id] }) });
const refundId = z.object({ id: uuid.meta({ description: 'The refund id (UUID).', examples: [s.sampleRefund.id] }) });
const eventId = z.object({
  event_id: z.string().meta({
    description: "The event id, `evt_<uuid>`: the body's `event_id` and the webhook-id of its deliveries.",
    examples: [s.sampleEvents['payment.succeeded'].event_id],
  }),
});
const providerName = z.object({ provider: z.string().meta({ description: 'The payment provider, as configured.', examples: ['sbp-sim'] }) });
const assetName = z.object({ file: z.string().meta({ description: 'The asset file name, as the page links it.', examples: ['checkout.css'] }) });
const languageQuery = z.object({
  lang: z.enum(['ru', 'en']).optional().meta({ description: 'The page language; remembered in a cookie. Otherwise Accept-Language decides.' }),
});

const createBody = { schema: createLinkBody, example: { shop_id: 42, amount: '1500.00', order_id: 'order-1001', description: 'Two coffees' } };
const cashierCreateBody = {
  schema: createLinkBody,
  example: { amount: 1500, order_id: 'order-1001', return_url: 'https://shop.example/orders/1001' },
};
const emptyOptional = (schema: z.ZodType) => ({ schema, optional: true, example: {} });

const linkCreated = { status: 201, description: 'The link, pending.', schema: paymentLink, example: s.sampleLink };
const linkCanceled = { status: 200, description: 'The link, canceled.', schema: paymentLink, example: s.sampleCanceledLink };
const linkRead = { status: 200, description: 'The link.', schema: paymentLink, example: s.sampleLink };
const linkPage = {
  status: 200,
  description: "A page of links, newest first; `payments` repeats `payment_links` (the interface's alias).",
  schema: paymentLinkList,
  example: s.sampleLinkList,
};
const createDescription = (credential: string): string =>
  `${credential} The link is created in the credential's mode (\`livemode\`): a test link may be created for a \`pending\` shop too; a \`blocked\` or \`rejected\` shop is 422 in both modes.`;
const createErrors: ErrorCode[] = ['common.err.forbidden', 'common.err.not_found', 'account.err.email_not_confirmed', 'shop.err.not_approved'];
const deliveryPage = { status: 200, description: 'A page of deliveries, newest first.', schema: webhookDeliveryList, example: s.sampleDeliveryList };
const deliveryResent = {
  status: 202,
  description: 'The delivery with a new series of attempts scheduled (not yet delivered).',
  schema: webhookDelivery,
  example: s.sampleScheduledDelivery,
};
const shopPage = { status: 200, description: "A page of the merchant's shops.", schema: merchantShopPage, example: s.sampleShopPage };
const shopRead = { status: 200, description: 'The shop (never its secret or cashier key).', schema: merchantShop, example: s.sampleShop };

const refundBody = { schema: createRefundBody, example: { amount: '500.00', reason: 'The buyer returned one coffee' } };
const refundDescription = (family: string): string =>
  `${family} Refunds part or all of a paid link (default: all that is left to refund) in the link's mode. Checked in this order: the body (400), the link (404; another mode's link too), its owner (403), \`destination\` against the link's network (400: required and valid for a link paid on a crypto network (TRC20, ERC20, TON, BTC addresses), refused for any other), the link paid (409 \`payment_link.err.not_paid\`), the amount within the link's \`amount\` less its succeeded and pending refunds (422 \`refund.err.amount_exceeds_refundable\`; the platform keeps its fee), then the shop's \`available\` balance (422 \`refund.err.insufficient_balance\`). The refund is \`pending\` until the provider settles it (\`refund.succeeded\` / \`refund.failed\`); the amount is reserved from \`available\` at once.`;
const refundErrors: ErrorCode[] = [
  'common.err.forbidden',
  'payment_link.err.not_paid',
  'refund.err.amount_exceeds_refundable',
  'refund.err.insufficient_balance',
];
const refundCreated = {
  status: 201,
  description: 'The refund, pending (the sandbox provider has accepted it: `gateway_refund_id` set).',
  schema: refund,
  example: s.sampleRefund,
};
const refundRead = { status: 200, description: 'The refund.', schema: refund, example: s.sampleSucceededRefund };
const refundList = { status: 200, description: 'A page of refunds, newest first.', schema: refundPage, example: s.sampleRefundPage };
const balanceRead = {
  status: 200,
  description: "The shop's balance in the caller's mode (`livemode`): `available` to refund from, and `refund_reserve` held by pending refunds.",
  schema: balance,
  example: s.sampleBalance,
};
const balanceTransactionList = {
  status: 200,
  description: "A page of the movements of the shop's `available` balance, newest first.",
  schema: balanceTransactionPage,
  example: s.sampleBalanceTransactionPage,
};
const eventList = {
  status: 200,
  description: 'A page of events, newest first, each the webhook body of that event.',
  schema: webhookEventPage,
  example: s.sampleEventPage,
};
const eventRead = { status: 200, description: 'The event, as its webhook body.', schema: webhookEvent, example: s.sampleEvents['refund.succeeded'] };
const eventsDescription =
  "Every event of the caller's shops in its mode, whether the shop subscribes to its type or not, kept 30 days: a merchant who missed webhooks reconciles from here. Order by `created_at`.";
const listErrors: ErrorCode[] = ['common.err.forbidden', 'common.err.not_found'];

/** Every operation the gateway serves. A test checks this list against the routes the gateway's express app mounts. */
const unresolvedId = z.object({ id: uuid.meta({ description: 'The unresolved payment id (UUID).', examples: [s.sampleUnresolvedPayment.id] }) });
const unresolvedRead = { status: 200, description: 'The unresolved payment.', schema: unresolvedPayment, example: s.sampleUnresolvedPayment };
const UNRESOLVED_RULES =
  "Each resolves once: a second resolve (settle or refund) is 409 `unresolved_payment.err.already_resolved`; a payment held for AML checks (`aml_hold`) is 403 to merchants (the platform resolves it). Another merchant's is 403; an unknown one, or one of the other mode, 404.";

/** The unresolved payments' four operations of one family (`/merchant/v1` with API keys, `/api/v1` with a session). */
function unresolvedOperations(prefix: string, auth: Auth, idPrefix: string, family: string): OperationSpec[] {
  const op = (name: string): string => (idPrefix === '' ? name : `${idPrefix}${name[0]?.toUpperCase() ?? ''}${name.slice(1)}`);
  return [
    {
      method: 'get',
      path: `${prefix}/unresolved-payments`,
      operationId: op('listUnresolvedPayments'),
      summary: 'List unresolved payments',
      description: `${family} Money that arrived but did not simply pay a pending link, newest first, in the caller's mode: \`late\` (after the link was canceled or expired), \`duplicate\` (another attempt had paid the link), \`underpaid\`, \`overpaid\` (the surplus), \`aml_hold\`. Filters: \`shop_id\`, \`status\`, \`reason\`.`,
      tag: TAGS.unresolved,
      auth,
      query: listUnresolvedQuery,
      success: {
        status: 200,
        description: 'A page of unresolved payments, newest first.',
        schema: unresolvedPaymentPage,
        example: { unresolved_payments: [s.sampleUnresolvedPayment], has_more: false, next_cursor: null },
      },
      errors: listErrors,
    },
    {
      method: 'get',
      path: `${prefix}/unresolved-payments/{id}`,
      operationId: op('getUnresolvedPayment'),
      summary: 'Read an unresolved payment',
      description: "Another merchant's is 403; an unknown one, or one of the other mode, 404.",
      tag: TAGS.unresolved,
      auth,
      pathParams: unresolvedId,
      success: unresolvedRead,
      errors: ['common.err.forbidden'],
    },
    {
      method: 'post',
      path: `${prefix}/unresolved-payments/{id}/settle`,
      operationId: op('settleUnresolvedPayment'),
      summary: 'Settle an unresolved payment to the shop',
      description: `${family} Credits the shop what arrived less the fee at the payment's method rate (the fee on the shop whatever its \`fee_payer\`): a statement row of type \`unresolved_payment\` (\`late_payment\` for a late one), \`unresolved_payment.settled\` (and \`payment.late_settled\` for a late one). ${UNRESOLVED_RULES}`,
      tag: TAGS.unresolved,
      auth,
      pathParams: unresolvedId,
      body: emptyOptional(settleUnresolvedBody),
      idempotency: 'replay',
      success: {
        ...unresolvedRead,
        description: 'The unresolved payment, settled.',
        example: { ...s.sampleUnresolvedPayment, status: 'settled', resolved_at: '2026-11-26T11:00:00+03:00' },
      },
      errors: ['common.err.forbidden', 'unresolved_payment.err.already_resolved'],
    },
    {
      method: 'post',
      path: `${prefix}/unresolved-payments/{id}/refund`,
      operationId: op('refundUnresolvedPayment'),
      summary: 'Refund an unresolved payment to the payer',
      description: `${family} Sends what arrived back to the payer through the provider that took it, without touching the shop's balance. \`destination\` is the buyer's address for a payment on a crypto network (required and checked as for refunds, 400), refused for any other. The refund is recorded before the provider is called; if the provider fails it, the payment is \`unresolved\` again (resolvable anew). Sends \`unresolved_payment.refunded\`. ${UNRESOLVED_RULES}`,
      tag: TAGS.unresolved,
      auth,
      pathParams: unresolvedId,
      body: { schema: refundUnresolvedBody, optional: true, example: { destination: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' } },
      idempotency: 'replay',
      success: {
        ...unresolvedRead,
        description: 'The unresolved payment, refunded (`refund_id` names the refund, in the refunds list).',
        example: { ...s.sampleUnresolvedPayment, status: 'refunded', refund_id: s.sampleRefund.id, resolved_at: '2026-11-26T11:00:00+03:00' },
      },
      errors: ['common.err.forbidden', 'unresolved_payment.err.already_resolved'],
    },
  ];
}

export const OPERATIONS: readonly OperationSpec[] = [
  // Merchant API: account API key pairs.
  {
    method: 'post',
    path: '/merchant/v1/payment-links',
    operationId: 'merchantCreatePaymentLink',
    summary: 'Create a payment link',
    description: createDescription('`shop_id` is required. `amount` is roubles: a JSON number or a decimal string, at most 2 decimals.'),
    tag: TAGS.links,
    auth: 'apiKey',
    body: createBody,
    idempotency: 'replay',
    success: linkCreated,
    errors: createErrors,
  },
  {
    method: 'get',
    path: '/merchant/v1/payment-links',
    operationId: 'merchantListPaymentLinks',
    summary: 'List payment links',
    tag: TAGS.links,
    auth: 'apiKey',
    query: listLinksQuery,
    success: linkPage,
    errors: ['common.err.forbidden', 'common.err.not_found'],
  },
  {
    method: 'get',
    path: '/merchant/v1/payment-links/{id}',
    operationId: 'merchantGetPaymentLink',
    summary: 'Read a payment link',
    tag: TAGS.links,
    auth: 'apiKey',
    pathParams: linkId,
    success: linkRead,
    errors: ['common.err.forbidden'],
  },
  {
    method: 'post',
    path: '/merchant/v1/payment-links/{id}/cancel',
    operationId: 'merchantCancelPaymentLink',
    summary: 'Cancel a pending payment link',
    tag: TAGS.links,
    auth: 'apiKey',
    pathParams: linkId,
    body: emptyOptional(cancelLinkBody),
    idempotency: 'replay',
    success: linkCanceled,
    errors: ['common.err.forbidden', 'payment_link.err.not_pending'],
  },
  {
    method: 'post',
    path: '/merchant/v1/payment-links/{id}/refunds',
    operationId: 'merchantCreateRefund',
    summary: 'Refund a paid payment link',
    description: refundDescription('With API keys.'),
    tag: TAGS.refunds,
    auth: 'apiKey',
    pathParams: linkId,
    body: refundBody,
    idempotency: 'replay',
    success: refundCreated,
    errors: refundErrors,
  },
  {
    method: 'get',
    path: '/merchant/v1/refunds',
    operationId: 'merchantListRefunds',
    summary: 'List refunds',
    tag: TAGS.refunds,
    auth: 'apiKey',
    query: listRefundsQuery,
    success: refundList,
    errors: listErrors,
  },
  {
    method: 'get',
    path: '/merchant/v1/refunds/{id}',
    operationId: 'merchantGetRefund',
    summary: 'Read a refund',
    description: "Another merchant's refund is 403; an unknown one, or one of the other mode, 404.",
    tag: TAGS.refunds,
    auth: 'apiKey',
    pathParams: refundId,
    success: refundRead,
    errors: ['common.err.forbidden'],
  },
  {
    method: 'get',
    path: '/merchant/v1/balance',
    operationId: 'merchantGetBalance',
    summary: "Read a shop's balance",
    description: 'Read from the stored running balance, never by summing entries.',
    tag: TAGS.balance,
    auth: 'apiKey',
    query: balanceQuery,
    success: balanceRead,
    errors: listErrors,
  },
  {
    method: 'get',
    path: '/merchant/v1/balance-transactions',
    operationId: 'merchantListBalanceTransactions',
    summary: 'List balance transactions (the statement)',
    tag: TAGS.balance,
    auth: 'apiKey',
    query: listBalanceTransactionsQuery,
    success: balanceTransactionList,
    errors: listErrors,
  },
  {
    method: 'get',
    path: '/merchant/v1/events',
    operationId: 'merchantListEvents',
    summary: 'List events',
    description: eventsDescription,
    tag: TAGS.events,
    auth: 'apiKey',
    query: listEventsQuery,
    success: eventList,
    errors: listErrors,
  },
  {
    method: 'get',
    path: '/merchant/v1/events/{event_id}',
    operationId: 'merchantGetEvent',
    summary: 'Read an event',
    description: 'An unknown id, one older than 30 days, or one of the other mode is 404.',
    tag: TAGS.events,
    auth: 'apiKey',
    pathParams: eventId,
    success: eventRead,
    errors: ['common.err.forbidden'],
  },
  {
    method: 'get',
    path: '/merchant/v1/webhook-deliveries',
    operationId: 'merchantListWebhookDeliveries',
    summary: 'List webhook deliveries',
    tag: TAGS.deliveries,
    auth: 'apiKey',
    query: listDeliveriesQuery,
    success: deliveryPage,
    errors: ['common.err.forbidden', 'common.err.not_found'],
  },
  {
    method: 'post',
    path: '/merchant/v1/webhook-deliveries/{id}/resend',
    operationId: 'merchantResendWebhookDelivery',
    summary: 'Resend a webhook delivery',
    tag: TAGS.deliveries,
    auth: 'apiKey',
    pathParams: deliveryId,
    body: emptyOptional(cancelLinkBody),
    success: deliveryResent,
    errors: ['common.err.forbidden', 'shop.err.no_webhook_url'],
  },
  {
    method: 'get',
    path: '/merchant/v1/shops',
    operationId: 'merchantListShops',
    summary: 'List shops',
    tag: TAGS.shops,
    auth: 'apiKey',
    query: listShopsQuery,
    success: shopPage,
    errors: [],
  },
  {
    method: 'get',
    path: '/merchant/v1/shops/{id}',
    operationId: 'merchantGetShop',
    summary: 'Read a shop',
    tag: TAGS.shops,
    auth: 'apiKey',
    pathParams: shopId,
    success: shopRead,
    errors: ['common.err.forbidden'],
  },
  // Cashier key.
  {
    method: 'post',
    path: '/api/v1/merchant/payments',
    operationId: 'cashierCreatePayment',
    summary: "Create a payment link for the cashier key's shop",
    description: createDescription("The shop is the cashier key's; a `shop_id` in the body must name it."),
    tag: TAGS.links,
    auth: 'cashier',
    body: cashierCreateBody,
    idempotency: 'replay',
    success: linkCreated,
    errors: createErrors,
  },
  // Dashboard session (and a cashier key for create).
  {
    method: 'post',
    path: '/api/v1/auth/login',
    operationId: 'login',
    summary: 'Sign in to the dashboard',
    description: 'Answers a session token and sets it as the `sid` cookie. Failed sign-ins are limited per address and per email.',
    tag: TAGS.auth,
    auth: 'none',
    rateLimited: true,
    body: { schema: loginBody, example: { email: 'owner@shop.example', password: 'correct horse battery staple' } },
    success: { status: 200, description: 'Signed in.', schema: loginResponse, example: s.sampleLogin, setsCookie: true },
    errors: ['common.err.unauthorized'],
  },
  {
    method: 'post',
    path: '/api/v1/auth/logout',
    operationId: 'logout',
    summary: 'Sign out',
    description: 'Ends the session and clears the `sid` cookie.',
    tag: TAGS.auth,
    auth: 'session',
    rateLimited: false,
    success: { status: 204, description: 'Signed out.', setsCookie: true },
    errors: [],
  },
  {
    method: 'post',
    path: '/api/v1/auth/password',
    operationId: 'changePassword',
    summary: 'Change the account password',
    description: 'Ends every other session of the account.',
    tag: TAGS.auth,
    auth: 'session',
    body: { schema: changePasswordBody, example: { current_password: 'correct horse battery staple', new_password: 'a longer new passphrase' } },
    success: { status: 204, description: 'Changed.' },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/v1/me',
    operationId: 'getMe',
    summary: 'Read the signed-in account',
    tag: TAGS.auth,
    auth: 'session',
    success: { status: 200, description: 'The account.', schema: meView, example: s.sampleMe },
    errors: [],
  },
  {
    method: 'post',
    path: '/api/v1/payment-links',
    operationId: 'createPaymentLink',
    summary: 'Create a payment link (dashboard or cashier key)',
    description: createDescription('A session names the shop (`shop_id` required); a cashier key carries its own.'),
    tag: TAGS.links,
    auth: 'cashierOrSession',
    body: createBody,
    idempotency: 'replay',
    success: linkCreated,
    errors: createErrors,
  },
  {
    method: 'get',
    path: '/api/v1/payment-links',
    operationId: 'listPaymentLinks',
    summary: 'List payment links',
    tag: TAGS.links,
    auth: 'session',
    query: listLinksQuery,
    success: linkPage,
    errors: ['common.err.forbidden', 'common.err.not_found'],
  },
  {
    method: 'get',
    path: '/api/v1/payment-links/{id}',
    operationId: 'getPaymentLink',
    summary: 'Read a payment link',
    tag: TAGS.links,
    auth: 'session',
    pathParams: linkId,
    success: linkRead,
    errors: ['common.err.forbidden'],
  },
  {
    method: 'post',
    path: '/api/v1/payment-links/{id}/cancel',
    operationId: 'cancelPaymentLink',
    summary: 'Cancel a pending payment link',
    tag: TAGS.links,
    auth: 'session',
    pathParams: linkId,
    body: emptyOptional(cancelLinkBody),
    idempotency: 'replay',
    success: linkCanceled,
    errors: ['common.err.forbidden', 'payment_link.err.not_pending'],
  },
  {
    method: 'post',
    path: '/api/v1/payment-links/{id}/refunds',
    operationId: 'createRefund',
    summary: 'Refund a paid payment link',
    description: refundDescription('With a dashboard session.'),
    tag: TAGS.refunds,
    auth: 'session',
    pathParams: linkId,
    body: refundBody,
    idempotency: 'replay',
    success: refundCreated,
    errors: refundErrors,
  },
  {
    method: 'get',
    path: '/api/v1/refunds',
    operationId: 'listRefunds',
    summary: 'List refunds',
    tag: TAGS.refunds,
    auth: 'session',
    query: listRefundsQuery,
    success: refundList,
    errors: listErrors,
  },
  {
    method: 'get',
    path: '/api/v1/refunds/{id}',
    operationId: 'getRefund',
    summary: 'Read a refund',
    description: "Another merchant's refund is 403; an unknown one, or one of the other mode, 404.",
    tag: TAGS.refunds,
    auth: 'session',
    pathParams: refundId,
    success: refundRead,
    errors: ['common.err.forbidden'],
  },
  {
    method: 'post',
    path: '/api/v1/refunds/{id}/simulate',
    operationId: 'simulateRefund',
    summary: 'Settle a test refund as the provider would',
    description:
      "Test refunds only (a session sending `Pl-Mode: test`): moves a pending test refund to `succeeded` or `failed` through the same path as the sandbox provider's refund callback, with its `refund.*` event and ledger postings. A live refund is 404, as if it did not exist; a refund already final is 409 `refund.err.not_pending`.",
    tag: TAGS.refunds,
    auth: 'session',
    pathParams: refundId,
    body: { schema: simulateRefundBody, example: { status: 'succeeded' } },
    success: { status: 200, description: 'The refund, settled.', schema: refund, example: s.sampleSimulatedRefund },
    errors: ['common.err.forbidden', 'refund.err.not_pending'],
  },
  {
    method: 'get',
    path: '/api/v1/balance-transactions',
    operationId: 'listBalanceTransactions',
    summary: 'List balance transactions, or download them as a CSV statement',
    description:
      'With `format=csv`: the same rows (same filters, from `cursor` on) as an RFC 4180 CSV file, UTF-8 with a byte-order mark so spreadsheets read it right, streamed with a header row of the JSON field names. `limit` is then ignored: every row to the oldest is sent, read behind the stream in pages of 100 whatever the query says, so an export costs one backend read per 100 rows. The file is `statement-<shop_id or all>-<mode>.csv` (`Content-Disposition: attachment`); a failure after the first rows cuts the connection, so a partial file never looks whole.',
    tag: TAGS.balance,
    auth: 'session',
    query: listBalanceTransactionsSessionQuery,
    success: { ...balanceTransactionList, files: [{ mediaType: 'text/csv', example: s.sampleStatementCsv }] },
    errors: listErrors,
  },
  {
    method: 'get',
    path: '/api/v1/events',
    operationId: 'listEvents',
    summary: 'List events',
    description: eventsDescription,
    tag: TAGS.events,
    auth: 'session',
    query: listEventsQuery,
    success: eventList,
    errors: listErrors,
  },
  {
    method: 'get',
    path: '/api/v1/events/{event_id}',
    operationId: 'getEvent',
    summary: 'Read an event',
    description: 'An unknown id, one older than 30 days, or one of the other mode is 404.',
    tag: TAGS.events,
    auth: 'session',
    pathParams: eventId,
    success: eventRead,
    errors: ['common.err.forbidden'],
  },
  {
    method: 'get',
    path: '/api/v1/shops',
    operationId: 'listShops',
    summary: 'List shops',
    tag: TAGS.shops,
    auth: 'session',
    query: listShopsQuery,
    success: shopPage,
    errors: [],
  },
  {
    method: 'post',
    path: '/api/v1/shops',
    operationId: 'createShop',
    summary: 'Create a shop',
    description: 'The shop starts pending until an operator approves it.',
    tag: TAGS.shops,
    auth: 'session',
    body: { schema: createShopBody, example: { name: 'Coffee on the corner', webhook_url: 'https://shop.example/webhooks' } },
    idempotency: 'replay',
    success: { status: 201, description: 'The shop.', schema: merchantShop, example: { ...s.sampleShop, status: 'pending' } },
    errors: ['account.err.email_not_confirmed'],
  },
  {
    method: 'get',
    path: '/api/v1/shops/{id}',
    operationId: 'getShop',
    summary: 'Read a shop',
    tag: TAGS.shops,
    auth: 'session',
    pathParams: shopId,
    success: shopRead,
    errors: ['common.err.forbidden'],
  },
  {
    method: 'get',
    path: '/api/v1/shops/{id}/balance',
    operationId: 'getShopBalance',
    summary: "Read a shop's balance",
    description: "In the session's mode (`Pl-Mode`); read from the stored running balance, never by summing entries.",
    tag: TAGS.balance,
    auth: 'session',
    pathParams: shopId,
    success: balanceRead,
    errors: ['common.err.forbidden'],
  },
  {
    method: 'patch',
    path: '/api/v1/shops/{id}',
    operationId: 'updateShop',
    summary: 'Change a shop',
    description:
      'A merge patch: members left out stay; `{}` changes nothing. `webhook_events` replaces the event types sent to the webhook address (known types, no repeats, else 400 `common.err.validation_failed`); `webhook.test` is sent on request whatever it says. The shop is shared by both modes, and so is the list.',
    tag: TAGS.shops,
    auth: 'session',
    pathParams: shopId,
    body: {
      schema: updateShopBody,
      example: { webhook_url: 'https://shop.example/hooks/v2', webhook_events: ['payment.succeeded', 'payment_link.expired', 'refund.succeeded'] },
    },
    success: { ...shopRead, example: s.sampleSubscribedShop },
    errors: ['common.err.forbidden'],
  },
  {
    method: 'post',
    path: '/api/v1/shops/{id}/webhook-secret/rotate',
    operationId: 'rotateShopWebhookSecret',
    summary: "Rotate a shop's webhook secret",
    description: 'The new secret is shown once. The previous one keeps signing for `overlap_minutes` (default 1440).',
    tag: TAGS.shops,
    auth: 'session',
    pathParams: shopId,
    body: { schema: rotateSecretBody, optional: true, example: { overlap_minutes: 60 } },
    idempotency: 'secret',
    success: { status: 200, description: 'The new secret, once.', schema: rotatedSecret, example: s.sampleRotatedSecret },
    errors: ['common.err.forbidden', 'account.err.email_not_confirmed'],
  },
  {
    method: 'post',
    path: '/api/v1/shops/{id}/webhook-test',
    operationId: 'sendTestWebhook',
    summary: 'Send a test webhook',
    description: "Queues a `webhook.test` event to the shop's webhook address, signed like any other.",
    tag: TAGS.shops,
    auth: 'session',
    pathParams: shopId,
    body: emptyOptional(emptyBody),
    success: { status: 202, description: 'The delivery, scheduled.', schema: webhookDelivery, example: s.sampleTestDelivery },
    errors: ['common.err.forbidden', 'shop.err.no_webhook_url'],
  },
  {
    method: 'post',
    path: '/api/v1/shops/{id}/cashier-key/reissue',
    operationId: 'reissueCashierKey',
    summary: "Reissue a shop's cashier key",
    description:
      "A shop has one cashier key per mode: the body's `mode` (default `live`; not `Pl-Mode`) names which one. The new key is shown once; the old key of that mode stops working at once, the other mode's keeps working.",
    tag: TAGS.shops,
    auth: 'session',
    pathParams: shopId,
    body: { schema: reissueCashierKeyBody, optional: true, example: { mode: 'test' } },
    idempotency: 'secret',
    success: { status: 200, description: 'The new cashier key and its mode, once.', schema: reissuedCashierKey, example: s.sampleTestCashierKey },
    errors: ['common.err.forbidden', 'account.err.email_not_confirmed'],
  },
  {
    method: 'get',
    path: '/api/v1/webhook-deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'List webhook deliveries',
    tag: TAGS.deliveries,
    auth: 'session',
    query: listDeliveriesQuery,
    success: deliveryPage,
    errors: ['common.err.forbidden', 'common.err.not_found'],
  },
  {
    method: 'post',
    path: '/api/v1/webhook-deliveries/{id}/resend',
    operationId: 'resendWebhookDelivery',
    summary: 'Resend a webhook delivery',
    tag: TAGS.deliveries,
    auth: 'session',
    pathParams: deliveryId,
    body: emptyOptional(emptyBody),
    success: deliveryResent,
    errors: ['common.err.forbidden', 'shop.err.no_webhook_url'],
  },
  {
    method: 'get',
    path: '/api/v1/api-keys',
    operationId: 'listApiKeys',
    summary: 'List API keys',
    tag: TAGS.apiKeys,
    auth: 'session',
    success: {
      status: 200,
      description: "The account's keys of both modes (whatever `Pl-Mode` says), each with its `mode`, without secrets.",
      schema: apiKeyList,
      example: { api_keys: [s.sampleApiKey, s.sampleTestApiKey] },
    },
    errors: [],
  },
  {
    method: 'post',
    path: '/api/v1/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key pair',
    description:
      "The body's `mode` (default `live`; not `Pl-Mode`) decides the pair: `pk_test_` / `sk_test_` for test mode, whose links are test links. The limit counts active keys of both modes together. The secret is shown once.",
    tag: TAGS.apiKeys,
    auth: 'session',
    body: { schema: createApiKeyBody, optional: true, example: { label: 'Integration tests', mode: 'test' } },
    idempotency: 'secret',
    success: { status: 201, description: 'The key and its secret, once.', schema: apiKeyWithSecret, example: s.sampleTestApiKeyWithSecret },
    errors: ['account.err.email_not_confirmed', 'api_key.err.limit_reached'],
  },
  {
    method: 'post',
    path: '/api/v1/api-keys/{id}/reissue',
    operationId: 'reissueApiKey',
    summary: 'Reissue an API key pair',
    description: "A new pair of the key's own mode; the old one keeps working for `grace_minutes` (default 0).",
    tag: TAGS.apiKeys,
    auth: 'session',
    pathParams: apiKeyId,
    body: { schema: reissueApiKeyBody, optional: true, example: { grace_minutes: 60 } },
    idempotency: 'secret',
    success: { status: 201, description: 'The new key and its secret, once.', schema: apiKeyWithSecret, example: s.sampleApiKeyWithSecret },
    errors: ['common.err.forbidden', 'account.err.email_not_confirmed', 'api_key.err.inactive', 'api_key.err.limit_reached'],
  },
  {
    method: 'post',
    path: '/api/v1/api-keys/{id}/revoke',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key pair',
    tag: TAGS.apiKeys,
    auth: 'session',
    pathParams: apiKeyId,
    body: emptyOptional(emptyBody),
    success: { status: 200, description: 'The key, revoked.', schema: apiKeyView, example: s.sampleRevokedKey },
    errors: ['common.err.forbidden', 'api_key.err.inactive'],
  },
  {
    method: 'get',
    path: '/api/v1/audit-events',
    operationId: 'listAuditEvents',
    summary: 'List audit events',
    description: 'Credential changes and sign-ins from new addresses, newest first.',
    tag: TAGS.audit,
    auth: 'session',
    query: listAuditEventsQuery,
    success: { status: 200, description: 'A page of events.', schema: auditEventPage, example: s.sampleAuditPage },
    errors: [],
  },
  // The buyer's checkout: the link id is the capability.
  {
    method: 'get',
    path: '/p/{id}',
    operationId: 'getCheckoutPage',
    summary: 'The checkout page (HTML)',
    tag: TAGS.checkout,
    auth: 'none',
    pathParams: linkId,
    query: languageQuery,
    success: { status: 200, description: 'The page, in Russian or English.', html: true },
    errors: [],
    htmlErrors: true,
  },
  {
    method: 'get',
    path: '/p/{id}/panel',
    operationId: 'getCheckoutPanel',
    summary: "The checkout page's payment panel (HTML fragment)",
    tag: TAGS.checkout,
    auth: 'none',
    pathParams: linkId,
    success: { status: 200, description: 'The panel as it is now.', html: true },
    errors: [],
  },
  {
    method: 'get',
    path: '/p/{id}/status',
    operationId: 'getCheckoutStatus',
    summary: 'The link as the buyer may see it',
    tag: TAGS.checkout,
    auth: 'none',
    pathParams: linkId,
    success: { status: 200, description: 'The buyer-safe view.', schema: buyerLinkView, example: s.sampleBuyerView },
    errors: [],
  },
  {
    method: 'post',
    path: '/p/{id}/select',
    operationId: 'selectPaymentMethod',
    summary: 'Choose how to pay',
    tag: TAGS.checkout,
    auth: 'none',
    rateLimited: true,
    pathParams: linkId,
    body: { schema: selectMethodBody, example: { method: 'sbp' } },
    description:
      "Each choice is an attempt at the method's payment provider, with its own provider order id (`<link id>-<n>`); choosing again while the link is pending makes a new attempt and cancels the previous unpaid one at its provider. A payment for any attempt of a pending link pays it. When the provider is unavailable the link keeps its previous method (503 with `Retry-After`); when it refuses the payment, 422.",
    success: { status: 200, description: 'The buyer-safe view with the payment details.', schema: buyerLinkView, example: s.sampleBuyerView },
    errors: ['payment_link.err.not_pending', 'payment_link.err.method_unavailable', 'payment_link.err.provider_unavailable'],
  },
  {
    method: 'post',
    path: '/p/{id}/simulate',
    operationId: 'simulatePayment',
    summary: "Settle a test link as the provider would (test mode's pay and fail buttons)",
    description:
      'Test links only: moves a pending test link to `paid` (with its `payment.succeeded` webhook, `livemode: false`) or `failed` through the same path as a provider callback. A method need not be selected first. A live link is 404, as if it did not exist.',
    tag: TAGS.checkout,
    auth: 'none',
    rateLimited: true,
    pathParams: linkId,
    body: { schema: simulatePaymentBody, example: { status: 'paid' } },
    success: { status: 200, description: 'The buyer-safe view, settled.', schema: buyerLinkView, example: s.sampleSimulatedPaidView },
    errors: ['payment_link.err.not_pending'],
  },
  {
    method: 'get',
    path: '/p/assets/{file}',
    operationId: 'getCheckoutAsset',
    summary: 'A static asset of the checkout page',
    tag: TAGS.checkout,
    auth: 'none',
    pathParams: assetName,
    success: {
      status: 200,
      description: 'The stylesheet or the script of the page.',
      files: [
        { mediaType: 'text/css', example: ':root { color-scheme: light dark; }' },
        { mediaType: 'text/javascript', example: 'document.querySelectorAll("[data-deadline]").forEach(tick);' },
      ],
    },
    errors: [],
    htmlErrors: true,
    local: true,
  },
  // Payment providers.
  {
    method: 'post',
    path: '/callbacks/v1/{provider}',
    operationId: 'receiveProviderCallback',
    summary: "A payment provider's verdict on a payment or a refund",
    description:
      "Signed by the provider over the raw body (401 otherwise). A payment's verdict names `gateway_payment_id`; a refund's (the sandbox provider) names `gateway_refund_id` with `succeeded` or `failed` and an optional `failure_reason`. A verdict for a link no longer pending, or a refund already final, is answered 200 too (duplicates are harmless), so providers stop retrying.",
    tag: TAGS.callbacks,
    auth: 'none',
    pathParams: providerName,
    body: { schema: z.union([providerCallbackBody, providerRefundCallbackBody]), example: { gateway_payment_id: 'sbp_7f3a91', status: 'paid' } },
    success: { status: 200, description: 'Received.', schema: callbackReceived, example: { received: true } },
    errors: ['common.err.unauthorized'],
  },
  // The document itself and the dashboard app.
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    tag: TAGS.meta,
    auth: 'none',
    success: {
      status: 200,
      description: 'The OpenAPI 3.1 document.',
      schema: openApiDocumentShape,
      example: { openapi: '3.1.0', info: { title: 'Payment links API', version: '1.0.0' }, paths: {} },
    },
    errors: [],
    local: true,
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiReference',
    summary: 'The API reference (HTML)',
    description: "This document rendered in the browser (Scalar), from the gateway's own /openapi.json; 503 until it is built.",
    tag: TAGS.meta,
    auth: 'none',
    success: { status: 200, description: 'The reference page.', html: true },
    errors: [],
  },
  {
    method: 'get',
    path: '/docs/assets/{file}',
    operationId: 'getApiReferenceAsset',
    summary: 'A script of the API reference',
    tag: TAGS.meta,
    auth: 'none',
    pathParams: assetName,
    success: {
      status: 200,
      description: 'The script; cached for good when asked for by its version.',
      files: [{ mediaType: 'text/javascript', example: 'Scalar.createApiReference("#app", { url: "/openapi.json" });' }],
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/dashboard',
    operationId: 'getDashboard',
    summary: 'The merchant dashboard (HTML app)',
    description: 'Every path under /dashboard but /dashboard/assets answers the same page; the app routes in the browser.',
    tag: TAGS.meta,
    auth: 'none',
    success: { status: 200, description: "The app's page.", html: true },
    errors: [],
  },
  {
    method: 'get',
    path: '/dashboard/assets/{file}',
    operationId: 'getDashboardAsset',
    summary: 'A static asset of the dashboard',
    tag: TAGS.meta,
    auth: 'none',
    pathParams: assetName,
    success: {
      status: 200,
      description: 'The asset (script, stylesheet, image or font), cached for good (its name is its content hash).',
      files: [
        { mediaType: 'text/javascript', example: 'import{h as e}from"./vendor-3f9a1c.js";' },
        { mediaType: 'text/css', example: ':root{color-scheme:light dark}' },
        { mediaType: 'image/svg+xml', example: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"></svg>' },
        { mediaType: 'image/png' },
        { mediaType: 'font/woff2' },
      ],
    },
    errors: [],
  },
  ...unresolvedOperations('/merchant/v1', 'apiKey', 'merchant', 'With API keys.'),
  ...unresolvedOperations('/api/v1', 'session', '', 'With a dashboard session.'),
];
