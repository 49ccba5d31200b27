import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
  type oas31,
} from 'zod-openapi';
import {
  apiKeyView,
  auditEvent,
  balance,
  balanceTransaction,
  buyerLinkView,
  DEFAULT_WEBHOOK_EVENTS,
  EVENT_TYPES,
  merchantShop,
  MODE_HEADER,
  paymentLink,
  PAYMENT_EVENTS_TOPIC,
  refund,
  webhookDelivery,
  webhookEvent,
  type EventType,
} from '@pl/contracts';
import { ERROR_CATALOGUE, httpStatusOf, type ErrorCode } from '@pl/errors';
import { OPERATIONS, TAGS, type Auth, type OperationSpec } from './operations';
import { sampleEvents, sampleWebhookTest } from './samples';
import {
  credentialModeHeader,
  eitherModeHeader,
  errorBody,
  fieldIssue,
  idempotencyKey,
  requestIdHeader,
  sessionModeHeader,
  webhookTestWebhook,
} from './schemas';

/** The version of the API the document describes: `/merchant/v1`, `/api/v1`, `/callbacks/v1`. */
const API_VERSION = '1.0.0';

const ref = (kind: 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const SECURITY: Record<Auth, oas31.SecurityRequirementObject[]> = {
  apiKey: [{ ApiKey: [], ApiSecret: [] }],
  cashier: [{ CashierKey: [] }],
  apiKeyOrCashier: [{ ApiKey: [], ApiSecret: [] }, { CashierKey: [] }],
  session: [{ SessionCookie: [] }, { SessionToken: [] }],
  cashierOrSession: [{ CashierKey: [] }, { SessionCookie: [] }, { SessionToken: [] }],
  none: [],
};

const BODY_ERRORS: ErrorCode[] = [
  'common.err.invalid_json',
  'common.err.validation_failed',
  'common.err.payload_too_large',
  'common.err.unsupported_media_type',
];

const isRateLimited = (op: OperationSpec): boolean => op.rateLimited ?? op.auth !== 'none';

/**
 * The request headers, each under components/parameters once (as `#/components/parameters/<name>`): X-Request-Id,
 * the `Pl-Mode` each credential reads (a session's choice of mode, a key's check of its own) and the two meanings
 * of an `Idempotency-Key`.
 */
const REQUEST_ID_PARAMETER = requestIdHeader.optional().meta({ param: { id: 'X-Request-Id' } });

const MODE_HEADERS: Record<Exclude<Auth, 'none'>, z.ZodType> = {
  session: sessionModeHeader.meta({ param: { id: 'Pl-Mode.Session' } }),
  apiKey: credentialModeHeader.meta({ param: { id: 'Pl-Mode.Credential' } }),
  cashier: credentialModeHeader.meta({ param: { id: 'Pl-Mode.Credential' } }),
  apiKeyOrCashier: credentialModeHeader.meta({ param: { id: 'Pl-Mode.Credential' } }),
  cashierOrSession: eitherModeHeader.meta({ param: { id: 'Pl-Mode.Either' } }),
};
// The API key pair and the cashier key check Pl-Mode alike: one parameter, one instance.
MODE_HEADERS.cashier = MODE_HEADERS.apiKey;
MODE_HEADERS.apiKeyOrCashier = MODE_HEADERS.apiKey;

const IDEMPOTENCY_KEYS: Record<NonNullable<OperationSpec['idempotency']>, z.ZodType> = {
  secret: idempotencyKey
    .meta({
      description:
        'A repeat of a call that revealed a secret is 409 `common.err.idempotency_conflict`: a secret is shown once. A refusal is not kept: a repeat of it is judged anew.',
    })
    .optional()
    .meta({ param: { id: 'Idempotency-Key.Secret' } }),
  replay: idempotencyKey
    .meta({
      description:
        'A repeat with the same body answers the first success again, with `Idempotent-Replayed: true`; another body is 409. Only a success (2xx) is kept: a refusal (4xx, 5xx) changed nothing, so a repeat of it is judged anew against the state as it is then.',
    })
    .optional()
    .meta({ param: { id: 'Idempotency-Key.Replay' } }),
};

/** When `Pl-Mode` is 400 `common.err.validation_failed`, by credential. */
const MODE_MISMATCH: Record<Exclude<Auth, 'none'>, string> = {
  session: `a ${MODE_HEADER} header other than \`live\` or \`test\`.`,
  apiKey: `a ${MODE_HEADER} header that names another mode than the API key pair's (or neither \`live\` nor \`test\`).`,
  cashier: `a ${MODE_HEADER} header that names another mode than the cashier key's (or neither \`live\` nor \`test\`).`,
  apiKeyOrCashier: `a ${MODE_HEADER} header that names another mode than the API key pair's or cashier key's (or neither \`live\` nor \`test\`).`,
  cashierOrSession: `a ${MODE_HEADER} header other than \`live\` or \`test\`, or (cashier key) another mode than the key's.`,
};

/** Every error code an operation can answer: its own, and those of its credentials, body, query, path, key and limits. */
export function errorCodesOf(op: OperationSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(op.errors);
  if (op.auth !== 'none') codes.add('common.err.unauthorized');
  // Pl-Mode: a value other than live / test, or (API key, cashier key) another mode than the credential's.
  if (op.auth !== 'none') codes.add('common.err.validation_failed');
  // A change with the session cookie from another site (CSRF) is 403, whatever the route.
  if ((op.auth === 'session' || op.auth === 'cashierOrSession') && op.method !== 'get') codes.add('common.err.forbidden');
  if (isRateLimited(op)) codes.add('common.err.rate_limited');
  // An account that requires a second factor serves a member without one only the routes that enroll one.
  if ((op.auth === 'session' || op.auth === 'cashierOrSession') && !op.whileEnrolling) codes.add('auth.err.two_factor_required');
  if (op.stepUp) {
    codes.add('common.err.forbidden');
    codes.add('auth.err.step_up_required');
    // Step-up of a user with no second factor at all, on a route also served while enrolling (removing a passkey);
    // a route that steps up only a user who has one (registering a passkey) never asks it.
    if (op.stepUp !== 'has_second_factor') codes.add('auth.err.two_factor_required');
  }
  if (op.body) BODY_ERRORS.forEach((c) => codes.add(c));
  if (op.query) codes.add('common.err.validation_failed');
  if (op.pathParams) codes.add('common.err.not_found');
  if (op.idempotency) codes.add('common.err.idempotency_conflict');
  if (!op.local) codes.add('common.err.unavailable');
  codes.add('common.err.internal');
  return [...codes];
}

const exampleName = (code: ErrorCode): string => code.replace(/\W/g, '_');

/** One example error body per catalogue code (components.examples), which error responses refer to. */
const errorExamples = (): Record<string, oas31.ExampleObject> =>
  Object.fromEntries(
    [...new Set(OPERATIONS.flatMap(errorCodesOf))].sort().map((c) => {
      const details =
        c === 'common.err.validation_failed' ? { details: [{ field: 'amount', code: 'custom', message: 'must be greater than 0' }] } : {};
      return [exampleName(c), { summary: c, value: { error: { code: c, message: ERROR_CATALOGUE[c].when, ...details } } }];
    }),
  );

/** A catalogue code as part of a component's name: `common.err.not_found` → `NotFound`, `refund.err.not_pending` → `RefundNotPending`. */
const codeName = (code: ErrorCode): string => {
  const [family = '', , name = ''] = code.split('.');
  const pascal = (words: string): string => words.replace(/(?:^|_)(\w)/g, (_m, c: string) => c.toUpperCase());
  return (family === 'common' ? '' : pascal(family)) + pascal(name);
};

const AUTH_NAMES: Record<Exclude<Auth, 'none'>, string> = {
  session: 'Session',
  apiKey: 'ApiKey',
  cashier: 'Cashier',
  apiKeyOrCashier: 'ApiKeyOrCashier',
  cashierOrSession: 'CashierOrSession',
};

/**
 * The error responses, each written once under components/responses and referred to by every operation that
 * answers it: the 415 error answers of the 58 operations are 31 responses. What tells two apart is all that goes
 * into one: the status, its codes, HTML or JSON, and for a 400 the credential whose Pl-Mode check it describes. The
 * name says the codes (`InvalidJsonOrValidationFailed`), then that credential and `.Html` where they apply.
 */
function errorResponses(): (status: number, codes: ErrorCode[], html: boolean, auth: Auth) => ZodOpenApiResponseObject {
  const made = new Map<string, ZodOpenApiResponseObject>();
  const order = Object.keys(ERROR_CATALOGUE);
  return (status, all, html, auth) => {
    // One order for every operation (the catalogue's), so that the same codes make the same response.
    const codes = [...all].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    const mode = status === 400 && auth !== 'none' ? `.${AUTH_NAMES[auth]}` : '';
    const id = `${codes.map(codeName).join('Or')}${mode}${html ? '.Html' : ''}`;
    let response = made.get(id);
    if (!response) {
      response = { ...errorResponse(status, codes, html, auth), id };
      made.set(id, response);
    }
    return response;
  };
}

/** The codes of one status, as a response: their `when` in the description, one example each. */
function errorResponse(status: number, codes: ErrorCode[], html: boolean, auth: Auth): ZodOpenApiResponseObject {
  const lines = codes.map((c) => `- \`${c}\`: ${ERROR_CATALOGUE[c].when}`);
  if (status === 400 && auth !== 'none') lines.push(`- \`common.err.validation_failed\` also: ${MODE_MISMATCH[auth]}`);
  const headers: Record<string, oas31.ReferenceObject> = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
  if (status === 429 || status === 503) headers['Retry-After'] = ref('headers', 'Retry-After');
  if (status === 429) Object.assign(headers, rateLimitHeaders());
  const content = html
    ? { 'text/html': { schema: { type: 'string' as const }, example: '<!doctype html><html lang="en">…</html>' } }
    : {
        'application/json': {
          schema: errorBody(codes),
          examples: Object.fromEntries(codes.map((c) => [exampleName(c), { $ref: `#/components/examples/${exampleName(c)}` }])),
        },
      };
  return { description: lines.join('\n'), headers, content, 'x-error-codes': codes };
}

const rateLimitHeaders = (): Record<string, oas31.ReferenceObject> => ({
  'RateLimit-Limit': ref('headers', 'RateLimit-Limit'),
  'RateLimit-Remaining': ref('headers', 'RateLimit-Remaining'),
  'RateLimit-Reset': ref('headers', 'RateLimit-Reset'),
});

function successResponse(op: OperationSpec): ZodOpenApiResponseObject {
  const { success } = op;
  const headers: Record<string, oas31.ReferenceObject | oas31.HeaderObject> = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
  if (isRateLimited(op)) Object.assign(headers, rateLimitHeaders());
  if (op.idempotency) headers['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');
  if (success.setsCookie)
    headers['Set-Cookie'] = { description: 'The session cookie `sid` (HttpOnly, SameSite=Lax); cleared on logout.', schema: { type: 'string' } };
  let content: oas31.ContentObject | Record<string, unknown> | undefined;
  if (success.schema) content = { 'application/json': { schema: success.schema, example: success.example } };
  else if (success.html) content = { 'text/html': { schema: { type: 'string' }, example: '<!doctype html><html lang="ru">…</html>' } };
  if (success.files)
    content = {
      ...content,
      ...Object.fromEntries(
        success.files.map((f) => [
          f.mediaType,
          f.example === undefined
            ? { schema: { type: 'string', contentMediaType: f.mediaType } }
            : { schema: { type: 'string' }, example: f.example },
        ]),
      ),
    };
  return { description: success.description, headers, ...(content && { content }) } as ZodOpenApiResponseObject;
}

function operationOf(op: OperationSpec, errorResponseOf: ReturnType<typeof errorResponses>): ZodOpenApiOperationObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(op)) byStatus.set(httpStatusOf(code), [...(byStatus.get(httpStatusOf(code)) ?? []), code]);
  const responses: ZodOpenApiResponsesObject = { [String(op.success.status)]: successResponse(op) };
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    (responses as Record<string, unknown>)[String(status)] = errorResponseOf(status, codes, op.htmlErrors === true && status !== 405, op.auth);
  }
  const requestParams: NonNullable<ZodOpenApiOperationObject['requestParams']> = {};
  if (op.pathParams) requestParams.path = op.pathParams;
  if (op.query) requestParams.query = op.query;
  const idempotencyHeader = op.idempotency && { 'Idempotency-Key': IDEMPOTENCY_KEYS[op.idempotency] };
  const modeHeader = op.auth !== 'none' && { [MODE_HEADER]: MODE_HEADERS[op.auth] };
  requestParams.header = z.object({ 'X-Request-Id': REQUEST_ID_PARAMETER, ...modeHeader, ...idempotencyHeader });
  const operation: ZodOpenApiOperationObject = {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description && { description: op.description }),
    tags: [op.tag],
    security: SECURITY[op.auth],
    requestParams,
    responses,
  };
  if (op.body) {
    operation.requestBody = {
      required: op.body.optional !== true,
      ...(op.body.optional && { description: 'May be left out (or empty): it then counts as `{}`.' }),
      content: { 'application/json': { schema: op.body.schema, example: op.body.example } },
    };
  }
  return operation;
}

/** The three signature schemes of a webhook, and what tells the event and attempt apart. */
const WEBHOOK_HEADERS: Record<string, { description: string; example: string; signature?: true }> = {
  'X-Webhook-Event': { description: "The event's type, the body's `event`.", example: 'payment.succeeded' },
  'Service-Event': { description: 'The same as X-Webhook-Event.', example: 'payment.succeeded' },
  'X-Webhook-Id': {
    description:
      "The webhook id, the body's `event_id` (`evt_<uuid>`): the same on every attempt and resend of one event, so a receiver dedupes on it. (Deliveries made before events had ids keep their `whk_` id.)",
    example: 'evt_21bd9aff-3f5b-4298-8335-61ff15c6e91c',
  },
  'webhook-id': { description: 'The same as X-Webhook-Id (Standard Webhooks).', example: 'evt_21bd9aff-3f5b-4298-8335-61ff15c6e91c' },
  'X-Webhook-Timestamp': { description: 'Unix seconds when this attempt was sent.', example: '1795556400' },
  'webhook-timestamp': { description: 'The same as X-Webhook-Timestamp (Standard Webhooks).', example: '1795556400' },
  'X-Webhook-Attempt': { description: '1..8 within a series; a resend starts a new series at 1.', example: '1' },
  'X-Webhook-Signature': {
    description: "hex(HMAC-SHA256(raw body, the shop's webhook secret)). Absent when the shop has no secret.",
    example: '5d1f0c6a3e8b9f2d4a7c1e0b3d5f7a9c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d1f',
    signature: true,
  },
  'Service-Signature': {
    description: 'The same as X-Webhook-Signature.',
    example: '5d1f0c6a3e8b9f2d4a7c1e0b3d5f7a9c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d1f',
    signature: true,
  },
  'webhook-signature': {
    description:
      '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{raw body}">` (Standard Webhooks); during a secret rotation\'s overlap, two of them space-separated (new secret first).',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    signature: true,
  },
};

/** What each event means, for its webhook's summary. */
const EVENT_SUMMARIES: Record<EventType, string> = {
  'payment.succeeded': 'A link was paid and the merchant credited',
  'payment.failed': 'A payment of a link failed (the link is `failed`)',
  'payment_link.canceled': 'A link was canceled',
  'payment_link.expired': 'A link expired unpaid (by the sweeper, or when read past `expires_at`)',
  'refund.succeeded': 'A refund reached the buyer',
  'refund.failed':
    "A refund failed. Its amount is back in the shop's `available` balance, except for the refund of a late payment (`late_payment_id` set): that money never was in the balance, and the payment now waits with the provider for the operator to settle it to the shop or refund it anew",
  'payment.late_settled': 'An operator credited a payment that arrived after its link closed',
  'unresolved_payment.created':
    'Money arrived that did not simply pay a pending link (late, a duplicate, under- or overpaid, held for AML checks): it waits to be settled or refunded',
  'unresolved_payment.settled': 'An unresolved payment was credited to the shop, less the fee',
  'unresolved_payment.refunded': "An unresolved payment's refund to the payer was recorded and handed to the provider",
  'payout.created': 'A payout was made (approved at once, or awaiting approval); its amount and fee left the available balance',
  'payout.paid': 'A payout reached its destination',
  'payout.failed': "A payout failed (its rail refused it, or the bank returned it); its amount and fee are back in the shop's balance",
  'payout.canceled':
    "A payout was canceled, or rejected (`status: rejected`, the reason in `failure_reason`); its money is back in the shop's balance",
};

const webhookParameter = (name: string, example: string): oas31.ParameterObject => {
  const h = WEBHOOK_HEADERS[name];
  if (!h) throw new Error(`no webhook header ${name}`);
  return { name, in: 'header', required: h.signature !== true, description: h.description, schema: { type: 'string' }, example };
};

/** The event's name is an example of its own in each webhook; every other header is the same on all of them. */
const namesTheEvent = (name: string): boolean => name.endsWith('Event');

/** The webhook headers every webhook sends alike, once under components/parameters (`Webhook.<header>`). */
const WEBHOOK_PARAMETER_COMPONENTS: Record<string, oas31.ParameterObject> = Object.fromEntries(
  Object.entries(WEBHOOK_HEADERS)
    .filter(([name]) => !namesTheEvent(name))
    .map(([name, h]) => [`Webhook.${name}`, webhookParameter(name, h.example)]),
);

const webhookParameters = (event: string): (oas31.ParameterObject | oas31.ReferenceObject)[] =>
  Object.keys(WEBHOOK_HEADERS).map((name) =>
    namesTheEvent(name) ? webhookParameter(name, event) : { $ref: `#/components/parameters/Webhook.${name}` },
  );

const WEBHOOK_RESPONSES = {
  '200': { description: 'Any 2xx: received. Anything else, or no answer within the timeout, is retried.' },
} as const;

const subscription = (type: EventType): string =>
  DEFAULT_WEBHOOK_EVENTS.includes(type)
    ? 'Sent unless the shop removes it from `webhook_events`.'
    : "Sent only when the shop's `webhook_events` has it (`PATCH /api/v1/shops/{id}`).";

function eventWebhookOperation(type: EventType): ZodOpenApiOperationObject {
  const schema = webhookEvent.options.find((o) => o.shape.event.value === type);
  return {
    operationId: `${type.replace(/[._](\w)/g, (_m, c: string) => c.toUpperCase())}Webhook`,
    summary: EVENT_SUMMARIES[type],
    description: `${subscription(type)} Written in the same transaction as the change it reports (Kafka topic \`${PAYMENT_EVENTS_TOPIC}\`), sent to the shop's webhook_url and retried up to 8 times until a 2xx. \`event_id\` equals the webhook-id header: dedupe on it. Events are not ordered across types: order by \`created_at\`. \`livemode\` is false for a test-mode event: the same shop address receives both modes. The same body is an item of \`GET /merchant/v1/events\`. Verify a signature before trusting the body; ignore event types you do not know.`,
    tags: [TAGS.events],
    parameters: webhookParameters(type),
    requestBody: { required: true, content: { 'application/json': { schema, example: sampleEvents[type] } } },
    responses: WEBHOOK_RESPONSES,
    security: [],
  };
}

const webhookTestOperation = (): ZodOpenApiOperationObject => ({
  operationId: 'webhookTestWebhook',
  summary: 'A test webhook from the dashboard',
  description:
    'Sent by `POST /api/v1/shops/{id}/webhook-test` whatever `webhook_events` says, signed like any other and recorded in the delivery log of the mode it was sent in (`livemode`). Not an event: the events API does not list it.',
  tags: [TAGS.events],
  parameters: webhookParameters('webhook.test'),
  requestBody: { required: true, content: { 'application/json': { schema: webhookTestWebhook, example: sampleWebhookTest } } },
  responses: WEBHOOK_RESPONSES,
  security: [],
});

const HEADER_COMPONENTS: Record<string, oas31.HeaderObject> = {
  'X-Request-Id': {
    description: "The request's id: the caller's X-Request-Id when acceptable, else a fresh UUID. Quote it to support.",
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: '`true` when the answer is a replay of the first request with this Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'RateLimit-Limit': { description: 'Requests allowed in the current window (IETF RateLimit headers).', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
};

const TAG_DESCRIPTIONS: Record<keyof typeof TAGS, string> = {
  links: 'Create, list, read and cancel payment links.',
  refunds: "Give a buyer money back from a paid link, from the shop's balance.",
  unresolved:
    'Money that arrived but did not simply pay a pending link (late, duplicate, under- or overpaid, held): settle it to the shop or refund it, once.',
  payouts: "Money out of a shop's balance to the account's bank accounts and crypto addresses: destinations, payouts, approval.",
  balance: "The shop's balance per mode and its statement: every movement, from a double-entry ledger.",
  reports: "The dashboard Home page's figures: a shop's (or the account's) last days by Moscow day.",
  events: 'Every state change as an event: the events API and the webhooks that carry them.',
  shops: "The merchant's shops, their webhook secret and cashier key.",
  deliveries: 'The webhook delivery log and resends.',
  auth: 'Dashboard sign-in, sign-up, email confirmation, password reset, the user and their accounts.',
  apiKeys: 'Account API key pairs for /merchant/v1.',
  audit: 'Credential changes and sign-ins, as recorded.',
  team: "The account's members, their roles and invitations.",
  checkout: "The buyer's pages under /p: the link id is the capability.",
  callbacks: "Payment providers' verdicts, signed over the raw body.",
  meta: 'This document and the dashboard app.',
};

/** Each event type's body once (`PaymentSucceededEvent`, ...): the events API's items and the webhooks refer to it. */
const eventSchemas = (): Record<string, z.ZodType> =>
  Object.fromEntries(
    webhookEvent.options.map((o) => [`${o.shape.event.value.replace(/(?:^|[._])(\w)/g, (_m, c: string) => c.toUpperCase())}Event`, o]),
  );

/** The OpenAPI 3.1 document of the gateway, generated from the contracts' zod schemas and the error catalogue. */
export function buildOpenApiDocument(): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  const errorResponseOf = errorResponses();
  for (const op of OPERATIONS) paths[op.path] = { ...paths[op.path], [op.method]: operationOf(op, errorResponseOf) };
  const document = createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Payment links API',
        version: API_VERSION,
        description: [
          'Payment links for merchants. Three credentials: an account API key pair (`X-API-Key` + `X-API-Secret`) for',
          "`/merchant/v1`, a shop's cashier key (`Authorization: Bearer svc_live_...`) and a dashboard session (cookie `sid`",
          'or `Authorization: Bearer <session token>`) for `/api/v1`.',
          'Test mode: `pk_test_` / `sk_test_` key pairs and `svc_test_` cashier keys act in test mode, a session when it sends',
          '`Pl-Mode: test`. Test links (`livemode: false`) are paid with `POST /p/{id}/simulate`, never by a real provider, and',
          "each mode sees only its own links, deliveries, refunds, balances and events (another mode's object is 404, absent from lists).",
          "After a payment: refunds of paid links, each shop's balance and statement from a double-entry ledger, and an event for",
          "every state change, kept 30 days by the events API and sent as a webhook when the shop's `webhook_events` has its type.",
          'Every error is `{ "error": { "code", "message", "details"? } }`;',
          'the codes are listed in docs/errors.md. A known path with another method is 405 `common.err.method_not_allowed` with `Allow`;',
          'a URL and headers past 16 KiB are 431 `common.err.request_too_large` on every path.',
          'Times are RFC 3339 in Moscow time (+03:00); amounts are roubles as decimal strings.',
        ].join(' '),
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: '/', description: 'The gateway that serves this document.' }],
      tags: Object.entries(TAGS).map(([key, name]) => ({ name, description: TAG_DESCRIPTIONS[key as keyof typeof TAGS] })),
      paths,
      webhooks: {
        ...Object.fromEntries(EVENT_TYPES.map((type) => [type, { post: eventWebhookOperation(type) }])),
        'webhook.test': { post: webhookTestOperation() },
      },
      components: {
        schemas: {
          PaymentLink: paymentLink,
          BuyerLinkView: buyerLinkView,
          MerchantShop: merchantShop,
          WebhookDelivery: webhookDelivery,
          Refund: refund,
          Balance: balance,
          BalanceTransaction: balanceTransaction,
          ApiKey: apiKeyView,
          AuditEvent: auditEvent,
          FieldIssue: fieldIssue,
          Event: webhookEvent,
          ...eventSchemas(),
        },
        headers: HEADER_COMPONENTS,
        parameters: WEBHOOK_PARAMETER_COMPONENTS,
        examples: errorExamples(),
        securitySchemes: {
          ApiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description:
              'The public half of an account API key pair (`pk_live_...`, or `pk_test_...` for test mode); send X-API-Secret with it. A pair whose halves are of different modes is 401.',
          },
          ApiSecret: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Secret',
            description:
              'The secret half of the pair (`sk_live_...` / `sk_test_...`, the same mode as X-API-Key, else 401), shown once when the key is created.',
          },
          CashierKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'svc_live_... or svc_test_...',
            description: "A shop's cashier key: creates links for that shop only, in the key's mode (`svc_test_...`: test links).",
          },
          SessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'sid',
            description: 'The dashboard session cookie set by POST /api/v1/auth/login. Acts in live mode unless the request sends `Pl-Mode: test`.',
          },
          SessionToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              'The session token POST /api/v1/auth/login answers, as a Bearer token. Acts in live mode unless the request sends `Pl-Mode: test`.',
          },
        },
      },
    },
    {
      // `amount` accepts a JSON number judged by its source text (a JsonNumberText on parse): on the wire, a number.
      allowEmptySchema: { custom: true },
      override: ({ jsonSchema, zodSchema }) => {
        if (zodSchema._zod.def.type === 'custom') jsonSchema.type = 'number';
        // zod-openapi adds an OpenAPI `discriminator` to `Event` once its members are components. Each member's
        // `event` const already tells them apart, and JSON Schema validators (ajv) take no `discriminator`
        // keyword unless told to: the document stays what it was before the members were shared.
        delete jsonSchema.discriminator;
      },
    },
  );
  // Listed by name, not in the order the operations first use them.
  const { components } = document;
  if (components?.responses) components.responses = sortedByKey(components.responses);
  if (components?.parameters) components.parameters = sortedByKey(components.parameters);
  return document;
}

const sortedByKey = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The document as the gateway serves it and docs/openapi.json holds it: 2-space JSON and a final newline. */
export const openApiJson = (): string => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
