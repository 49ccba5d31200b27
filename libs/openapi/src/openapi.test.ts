import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES, PUBLIC_EVENT_ID, webhookEvent } from '@pl/contracts';
import { ERROR_CATALOGUE, type ErrorCode } from '@pl/errors';
import { buildOpenApiDocument, errorCodesOf, openApiJson, OPERATIONS, renderErrorsMarkdown } from './index';

const DOCS = join(__dirname, '..', '..', '..', 'docs');
type Json = Record<string, unknown>;

/** Every `$ref` of the document replaced by what it points to: the contract as a client reads it. */
function dereferenced<T extends object>(document: T): T {
  const at = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, part) => (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Json;
    if (typeof $ref === 'string') return walk({ ...(at($ref) as Json), ...rest });
    return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, walk(v)]));
  };
  return walk(document) as T;
}

const shared = buildOpenApiDocument();
const doc = dereferenced(shared);
interface Param {
  name: string;
  in: string;
  required?: boolean;
  schema: { enum?: string[]; default?: string };
}
const operations = (): [string, string, Json][] =>
  Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
      .map(([method, op]): [string, string, Json] => [path, method, op as Json]),
  );

describe('the committed copies', () => {
  it('docs/openapi.json is what the generator makes (npm run openapi rewrites it)', () => {
    expect(readFileSync(join(DOCS, 'openapi.json'), 'utf8')).toBe(openApiJson());
  });

  it('docs/errors.md is what the generator makes from the catalogue (npm run openapi rewrites it)', () => {
    expect(readFileSync(join(DOCS, 'errors.md'), 'utf8')).toBe(renderErrorsMarkdown());
  });

  it('docs/errors.md lists every catalogue code with its status and when it happens', () => {
    const md = renderErrorsMarkdown();
    for (const code of Object.keys(ERROR_CATALOGUE)) expect(md).toContain(`| \`${code}\` |`);
    expect(md).toContain('| `common.err.idempotency_conflict` | 409 |');
    expect(md).toContain('| `common.err.invalid_config` | 400 (CLI only) |');
  });
});

describe('the OpenAPI document', () => {
  it('writes each error response and header once, under components, and every operation and webhook refers to them', () => {
    const used = new Set<string>();
    for (const item of [...Object.values(shared.paths ?? {}), ...Object.values(shared.webhooks ?? {})])
      for (const op of Object.values(item as Record<string, { responses?: Json; parameters?: Json[] }>)) {
        for (const [status, response] of Object.entries(op.responses ?? {})) {
          const ref = (response as { $ref?: string }).$ref;
          if (Number(status) >= 400) expect({ status, ref: ref?.startsWith('#/components/responses/') }).toEqual({ status, ref: true });
          if (ref) used.add(ref);
        }
        for (const parameter of op.parameters ?? []) if (typeof parameter.$ref === 'string') used.add(parameter.$ref);
      }
    const components = shared.components ?? {};
    const defined = [
      ...Object.keys(components.responses ?? {}).map((n) => `#/components/responses/${n}`),
      ...Object.keys(components.parameters ?? {}).map((n) => `#/components/parameters/${n}`),
    ];
    // None written for nothing, and far fewer than the 415 error answers each written out before (the two-factor
    // codes, on every session route and on the step-up ones, made a few more combinations).
    expect([...used].sort()).toEqual(defined.sort());
    expect(Object.keys(components.responses ?? {}).length).toBeLessThan(60);
    expect(Object.keys(components.parameters ?? {}).sort()).toEqual([
      'Idempotency-Key.Replay',
      'Idempotency-Key.Secret',
      'Pl-Mode.Credential',
      'Pl-Mode.Either',
      'Pl-Mode.Session',
      'Webhook.Service-Signature',
      'Webhook.X-Webhook-Attempt',
      'Webhook.X-Webhook-Id',
      'Webhook.X-Webhook-Signature',
      'Webhook.X-Webhook-Timestamp',
      'Webhook.webhook-id',
      'Webhook.webhook-signature',
      'Webhook.webhook-timestamp',
      'X-Request-Id',
    ]);
  });

  it("writes each event type's body once, which the events API and the webhooks refer to", () => {
    const schemas = shared.components?.schemas ?? {};
    for (const type of EVENT_TYPES) {
      const name = `${type.replace(/(?:^|[._])(\w)/g, (_m, c: string) => c.toUpperCase())}Event`;
      expect({ type, schema: name in schemas }).toEqual({ type, schema: true });
      const body = shared.webhooks?.[type]?.post?.requestBody as { content: Record<string, { schema: Json }> };
      expect(body.content['application/json']?.schema).toEqual({ $ref: `#/components/schemas/${name}` });
    }
    const event = shared.paths?.['/merchant/v1/events/{event_id}']?.get?.responses?.['200'] as { content: Record<string, { schema: Json }> };
    expect(event.content['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Event' });
  });

  it('is OpenAPI 3.1 with one operation per spec, each with a unique operationId, a summary and a tag', () => {
    expect(doc.openapi).toBe('3.1.0');
    const ops = operations();
    expect(ops).toHaveLength(OPERATIONS.length);
    const ids = ops.map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [, , op] of ops) {
      expect(typeof op.summary).toBe('string');
      expect(op.tags).toHaveLength(1);
      expect(op.security).toBeDefined();
    }
  });

  it('gives every request body and JSON answer an example that its own zod schema accepts', () => {
    for (const spec of OPERATIONS) {
      if (spec.body)
        expect({ op: spec.operationId, ok: spec.body.schema.safeParse(spec.body.example).success }).toEqual({ op: spec.operationId, ok: true });
      if (spec.success.schema) {
        expect(spec.success.example).toBeDefined();
        const parsed = spec.success.schema.safeParse(spec.success.example);
        expect({ op: spec.operationId, ok: parsed.success, issues: parsed.error?.issues }).toEqual({
          op: spec.operationId,
          ok: true,
          issues: undefined,
        });
      }
    }
    // In the document: every request body and every answer with a body carries an example (a binary asset, which has
    // no text to show, says its media type in `contentMediaType` instead).
    for (const [path, method, op] of operations()) {
      const body = op.requestBody as { content: Record<string, { example?: unknown }> } | undefined;
      if (body) expect(body.content['application/json']?.example).toBeDefined();
      for (const [status, response] of Object.entries(
        op.responses as Record<
          string,
          { content?: Record<string, { example?: unknown; examples?: unknown; schema?: { contentMediaType?: string } }> }
        >,
      )) {
        if (status === '204') continue;
        const media = Object.values(response.content ?? {});
        expect({
          path,
          method,
          status,
          examples:
            media.length > 0 && media.every((m) => m.example !== undefined || m.examples !== undefined || m.schema?.contentMediaType !== undefined),
        }).toEqual({
          path,
          method,
          status,
          examples: true,
        });
      }
    }
  });

  it('takes request schemas from their input side: a query limit is a string, an amount a number or a string', () => {
    const list = doc.paths?.['/merchant/v1/payment-links']?.get;
    const limit = list?.parameters?.find((p) => 'name' in p && p.name === 'limit') as { schema: { type: string } } | undefined;
    expect(limit?.schema.type).toBe('string');
    const create = doc.paths?.['/merchant/v1/payment-links']?.post?.requestBody as { content: Record<string, { schema: Json }> };
    const amount = (create.content['application/json']?.schema.properties as Record<string, { type: unknown }>).amount;
    expect(amount?.type).toEqual(['number', 'string']);
  });

  it('lists every error code an operation can answer under its HTTP status, each from the catalogue', () => {
    const seen = new Set<string>();
    for (const [path, method, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const codes = (response['x-error-codes'] ?? []) as string[];
        if (Number(status) < 400) {
          expect(codes).toEqual([]);
          continue;
        }
        expect({ path, method, status, codes: codes.length > 0 }).toEqual({ path, method, status, codes: true });
        for (const code of codes) {
          expect(Object.keys(ERROR_CATALOGUE)).toContain(code);
          const entry = ERROR_CATALOGUE[code as ErrorCode];
          // The status of a code is the catalogue's, never chosen per route.
          expect({ code, status: Number(status) }).toEqual({
            code,
            status: {
              validation: 400,
              invalid_json: 400,
              unauthorized: 401,
              forbidden: 403,
              not_found: 404,
              method_not_allowed: 405,
              conflict: 409,
              payload_too_large: 413,
              request_too_large: 431,
              unsupported_media_type: 415,
              unprocessable: 422,
              rate_limited: 429,
              internal: 500,
              unavailable: 503,
            }[entry.kind],
          });
          seen.add(code);
        }
      }
    }
    // Every code an HTTP client can get is documented somewhere; 405 is said once, in the info (every route answers it).
    const reachable = Object.entries(ERROR_CATALOGUE)
      .filter(([code, entry]) => !('cliOnly' in entry) && code !== 'common.err.method_not_allowed' && code !== 'common.err.request_too_large')
      .map(([code]) => code);
    expect([...seen].sort()).toEqual(reachable.sort());
    expect(doc.info.description).toContain('common.err.method_not_allowed');
    expect(doc.info.description).toContain('common.err.request_too_large');
  });

  it('adds the codes a route answers by its kind: credentials, body, key and limits', () => {
    const create = OPERATIONS.find((o) => o.operationId === 'merchantCreatePaymentLink');
    expect(create && errorCodesOf(create)).toEqual(
      expect.arrayContaining([
        'common.err.unauthorized',
        'common.err.rate_limited',
        'common.err.invalid_json',
        'common.err.validation_failed',
        'common.err.payload_too_large',
        'common.err.unsupported_media_type',
        'common.err.idempotency_conflict',
        'shop.err.not_approved',
        'common.err.unavailable',
        'common.err.internal',
      ]),
    );
    const page = OPERATIONS.find((o) => o.operationId === 'getOpenApiDocument');
    expect(page && errorCodesOf(page)).toEqual(['common.err.internal']);
  });

  it('names the three credentials, and which operations take which', () => {
    expect(doc.components?.securitySchemes).toEqual({
      ApiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      ApiSecret: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Secret' }),
      CashierKey: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'svc_live_... or svc_test_...' }),
      SessionCookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'sid' }),
      SessionToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(doc.paths?.['/merchant/v1/shops']?.get?.security).toEqual([{ ApiKey: [], ApiSecret: [] }]);
    expect(doc.paths?.['/api/v1/merchant/payments']?.post?.security).toEqual([{ CashierKey: [] }]);
    expect(doc.paths?.['/api/v1/shops']?.get?.security).toEqual([{ SessionCookie: [] }, { SessionToken: [] }]);
    expect(doc.paths?.['/p/{id}/select']?.post?.security).toEqual([]);
  });

  it('names the headers: X-Request-Id everywhere, Idempotency-Key and its replay, the rate limit and Retry-After', () => {
    const create = doc.paths?.['/merchant/v1/payment-links']?.post;
    expect(create?.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
        expect.objectContaining({ name: 'X-Request-Id', in: 'header' }),
      ]),
    );
    expect(doc.paths?.['/merchant/v1/payment-links']?.get?.parameters?.map((p) => ('name' in p ? p.name : ''))).not.toContain('Idempotency-Key');
    const created = create?.responses?.['201'] as { headers: Json };
    expect(Object.keys(created.headers).sort()).toEqual([
      'Idempotent-Replayed',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'X-Request-Id',
    ]);
    expect(Object.keys((create?.responses?.['429'] as { headers: Json }).headers)).toEqual(
      expect.arrayContaining(['Retry-After', 'RateLimit-Reset']),
    );
    expect(Object.keys((create?.responses?.['503'] as { headers: Json }).headers)).toEqual(['X-Request-Id', 'Retry-After']);
    for (const [path, method, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, { headers?: Json }>)) {
        expect({ path, method, status, id: Boolean(response.headers?.['X-Request-Id']) }).toEqual({ path, method, status, id: true });
      }
    }
  });

  it('says in each credential how its test mode is chosen: the key prefixes, a mixed pair 401, Pl-Mode for a session', () => {
    const schemes = doc.components?.securitySchemes as Record<string, { description: string }>;
    expect(schemes.ApiKey?.description).toContain('pk_test_');
    expect(schemes.ApiKey?.description).toContain('401');
    expect(schemes.ApiSecret?.description).toContain('sk_test_');
    expect(schemes.CashierKey?.description).toContain('svc_test_');
    expect(schemes.SessionCookie?.description).toContain('Pl-Mode: test');
    expect(schemes.SessionToken?.description).toContain('Pl-Mode: test');
  });

  it('takes Pl-Mode on every authenticated operation (live by default for a session), and answers its 400', () => {
    for (const spec of OPERATIONS) {
      const op = doc.paths?.[spec.path]?.[spec.method] as { parameters?: Param[]; responses: Record<string, { description: string }> };
      const header = op.parameters?.find((p) => p.name === 'Pl-Mode');
      if (spec.auth === 'none') {
        expect({ op: spec.operationId, header }).toEqual({ op: spec.operationId, header: undefined });
        continue;
      }
      expect({ op: spec.operationId, in: header?.in, required: header?.required ?? false, enum: header?.schema.enum }).toEqual({
        op: spec.operationId,
        in: 'header',
        required: false,
        enum: ['live', 'test'],
      });
      expect({ op: spec.operationId, default: header?.schema.default }).toEqual({
        op: spec.operationId,
        default: spec.auth === 'session' ? 'live' : undefined,
      });
      expect(errorCodesOf(spec)).toContain('common.err.validation_failed');
      expect(op.responses['400']?.description).toContain('Pl-Mode');
    }
    const cashier = doc.paths?.['/api/v1/merchant/payments']?.post?.responses?.['400'] as { description: string };
    expect(cashier.description).toContain("another mode than the cashier key's");
  });

  it('documents the test-mode simulator: test links only, a live or unknown link 404, a settled one 409', () => {
    const simulate = OPERATIONS.find((o) => o.operationId === 'simulatePayment');
    expect(simulate).toMatchObject({ method: 'post', path: '/p/{id}/simulate', auth: 'none' });
    expect(simulate && errorCodesOf(simulate)).toEqual(
      expect.arrayContaining(['common.err.validation_failed', 'common.err.not_found', 'payment_link.err.not_pending', 'common.err.rate_limited']),
    );
    expect(simulate?.body?.schema.safeParse({ status: 'refunded' }).success).toBe(false);
    expect(simulate?.success.example).toMatchObject({ livemode: false, status: 'paid' });
  });

  it('carries livemode on links and deliveries, mode on API keys and cashier keys', () => {
    const schemas = doc.components?.schemas as Record<string, { required?: string[] }>;
    for (const name of ['PaymentLink', 'BuyerLinkView', 'WebhookDelivery'])
      expect({ name, required: schemas[name]?.required }).toEqual({
        name,
        required: expect.arrayContaining(['livemode']),
      });
    expect(schemas.ApiKey?.required).toContain('mode');
    const reissue = doc.paths?.['/api/v1/shops/{id}/cashier-key/reissue']?.post;
    expect((reissue?.requestBody as { content: Record<string, { example: unknown }> }).content['application/json']?.example).toEqual({
      mode: 'test',
    });
    expect((reissue?.responses?.['200'] as { content: Record<string, { example: unknown }> }).content['application/json']?.example).toEqual({
      cashier_key: expect.stringMatching(/^svc_test_/),
      mode: 'test',
    });
  });

  it('describes a webhook per event type and webhook.test, each body { event, event_id, created_at, livemode, data }', () => {
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...EVENT_TYPES, 'webhook.test'].sort());
    for (const event of [...EVENT_TYPES, 'webhook.test']) {
      const body = doc.webhooks?.[event]?.post?.requestBody as { content: Record<string, { schema: Json; example: Json }> };
      const media = body.content['application/json'];
      const fields = ['event', 'event_id', 'created_at', 'livemode', 'data'];
      expect({ event, keys: Object.keys(media?.schema.properties as Json) }).toEqual({ event, keys: fields });
      expect({ event, required: media?.schema.required }).toEqual({ event, required: fields });
      expect({ event, example: Object.keys(media?.example ?? {}) }).toEqual({ event, example: fields });
    }
  });

  it("gives every event type an example its contract accepts, whose event_id has the webhook-id's form", () => {
    for (const type of EVENT_TYPES) {
      const body = doc.webhooks?.[type]?.post?.requestBody as { content: Record<string, { example: unknown }> };
      const example = body.content['application/json']?.example;
      const parsed = webhookEvent.safeParse(example);
      expect({ type, ok: parsed.success, event: parsed.data?.event }).toEqual({ type, ok: true, event: type });
      expect(parsed.data?.event_id).toMatch(PUBLIC_EVENT_ID);
    }
  });

  it('documents refunds, the balance, the statement CSV and the events API on both route families', () => {
    const byId = (id: string) => OPERATIONS.find((o) => o.operationId === id);
    for (const id of ['merchantCreateRefund', 'createRefund']) {
      const op = byId(id);
      expect({ id, idempotency: op?.idempotency, status: op?.success.status }).toEqual({ id, idempotency: 'replay', status: 201 });
      expect(op && errorCodesOf(op)).toEqual(
        expect.arrayContaining([
          'common.err.validation_failed',
          'common.err.not_found',
          'common.err.forbidden',
          'payment_link.err.not_paid',
          'refund.err.amount_exceeds_refundable',
          'refund.err.insufficient_balance',
        ]),
      );
    }
    const simulate = byId('simulateRefund');
    expect(simulate && errorCodesOf(simulate)).toEqual(expect.arrayContaining(['common.err.not_found', 'refund.err.not_pending']));
    const statement = doc.paths?.['/api/v1/balance-transactions']?.get?.responses?.['200'] as { content: Record<string, { example: unknown }> };
    expect(Object.keys(statement.content).sort()).toEqual(['application/json', 'text/csv']);
    expect(String(statement.content['text/csv']?.example)).toMatch(/^\ufeffid,shop_id,type,amount,fee,net,balance_after,/);
    const merchantStatement = doc.paths?.['/merchant/v1/balance-transactions']?.get?.parameters?.map((p) => ('name' in p ? p.name : ''));
    expect(merchantStatement).not.toContain('format');
    for (const path of ['/merchant/v1/events', '/api/v1/events', '/merchant/v1/events/{event_id}', '/api/v1/events/{event_id}'])
      expect({ path, documented: Boolean(doc.paths?.[path]?.get) }).toEqual({ path, documented: true });
  });

  it("carries amount_refunded on links and webhook_events on shops, which PATCH sets; the sandbox callback takes a refund's verdict", () => {
    const schemas = doc.components?.schemas as Record<string, { required?: string[] }>;
    expect(schemas.PaymentLink?.required).toContain('amount_refunded');
    expect(schemas.MerchantShop?.required).toContain('webhook_events');
    const patch = OPERATIONS.find((o) => o.operationId === 'updateShop');
    expect(patch?.body?.example).toMatchObject({ webhook_events: expect.arrayContaining(['refund.succeeded']) });
    expect(patch?.body?.schema.safeParse({ webhook_events: ['payment.refunded'] }).success).toBe(false);
    expect(patch?.success.example).toMatchObject({
      webhook_events: patch?.body?.example && (patch.body.example as { webhook_events: string[] }).webhook_events,
    });
    const callback = OPERATIONS.find((o) => o.operationId === 'receiveProviderCallback');
    expect(callback?.body?.schema.safeParse({ gateway_refund_id: 'sbr_1', status: 'succeeded', failure_reason: null }).success).toBe(true);
    expect(callback?.body?.schema.safeParse({ gateway_payment_id: 'sbx_1', status: 'paid' }).success).toBe(true);
  });

  it('describes every webhook with every signature header and a body schema', () => {
    const headers = [
      'X-Webhook-Event',
      'Service-Event',
      'X-Webhook-Id',
      'webhook-id',
      'X-Webhook-Timestamp',
      'webhook-timestamp',
      'X-Webhook-Attempt',
      'X-Webhook-Signature',
      'Service-Signature',
      'webhook-signature',
    ];
    for (const event of [...EVENT_TYPES, 'webhook.test']) {
      const post = doc.webhooks?.[event]?.post;
      expect(post?.parameters?.map((p) => ('name' in p ? p.name : '')).sort()).toEqual([...headers].sort());
      const body = post?.requestBody as { content: Record<string, { schema: Json; example: { event: string } }> };
      expect(body.content['application/json']?.example.event).toBe(event);
      expect(body.content['application/json']?.schema).toBeDefined();
    }
  });
});
