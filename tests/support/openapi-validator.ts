import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ApiClient } from '@pl/client';

/**
 * Every answer the black-box tests receive, checked against the committed OpenAPI document (docs/openapi.json, which
 * libs/openapi's drift test keeps equal to what the generator makes): the operation is found by method and path
 * template, the status must be one the operation documents, the media type the documented one, and a JSON body must
 * match the documented schema for that status (ajv, JSON Schema 2020-12; `#/components/...` refs resolve against the
 * document itself). An error body's `code` is thereby one the operation lists for that status (the schema's enum).
 *
 * A path no operation has is 404 and a known path with another method is 405, both with the error shape, as the
 * document's description says. Only bodies that are not the JSON API go unchecked beyond status and media type: the
 * buyer's HTML pages and panel, static assets (/p/assets, /docs/assets, /dashboard/assets), /docs and the dashboard's
 * HTML app; and HEAD answers (no body).
 */

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
}
interface Response {
  content?: Record<string, MediaType>;
  /** An error response is shared: `#/components/responses/<name>`. */
  $ref?: string;
}
interface Operation {
  operationId: string;
  responses: Record<string, Response>;
}
interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  /** Literal segments count: a literal beats a parameter (`/p/assets/{file}` over `/p/{id}`). */
  literals: number;
  operation: Operation;
  pointer: string;
}

const DOC_ID = 'urn:payment-links:openapi';
const METHODS = ['get', 'post', 'patch', 'put', 'delete'];

const escapePointer = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

interface Compiled {
  doc: OpenApiDocument;
  routes: Route[];
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
  genericError: ValidateFunction;
}

/** The committed document; OPENAPI_DOCUMENT names another file (to see the checks fail against an altered copy). */
const documentPath = (): string => process.env.OPENAPI_DOCUMENT ?? join(__dirname, '..', '..', 'docs', 'openapi.json');

let committed: Compiled | undefined;
const load = (): Compiled => (committed ??= compile(JSON.parse(readFileSync(documentPath(), 'utf8')) as OpenApiDocument));

type OpenApiDocument = { paths: Record<string, Record<string, Operation>> } & Json;

function compile(doc: OpenApiDocument): Compiled {
  // Strict: an unknown keyword in a response schema is an error. The document's own top-level members are not
  // schema keywords; they are declared so that the document can stand as the root the refs resolve against.
  const topLevel = Object.keys(doc).filter((k) => k !== '$schema');
  const ajv = new Ajv2020({ allErrors: true, strict: true, keywords: ['example', ...topLevel] });
  addFormats(ajv);
  // The whole document under one id, not checked as a schema itself (it is an OpenAPI document): only the response
  // schemas inside it are compiled, by JSON pointer, so their `#/components/schemas/...` refs resolve.
  ajv.addSchema(doc, DOC_ID, undefined, false);
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const segments = template.split('/').slice(1);
    const source = segments.map((seg) => (/^\{\w+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
    // The dashboard's app answers every path under /dashboard but its assets.
    const tail = template === '/dashboard' ? '(?:/(?!assets/).*)?' : '';
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      routes.push({
        method,
        template,
        pattern: new RegExp(`^/${source}${tail}/?$`),
        literals: segments.filter((s) => !s.startsWith('{')).length,
        operation,
        pointer: `#/paths/${escapePointer(template)}/${method}`,
      });
    }
  }
  routes.sort((a, b) => b.literals - a.literals);
  const genericError = ajv.compile({
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          details: { type: 'array', items: { $ref: `${DOC_ID}#/components/schemas/FieldIssue` } },
        },
      },
    },
  });
  return { doc, routes, ajv, validators: new Map(), genericError };
}

/** What a local `$ref` (`#/components/...`) of the document points to. */
const resolve = (doc: OpenApiDocument, ref: string): unknown =>
  ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, part) => (node as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);

/** What a response looks like to the validator. */
export interface ObservedAnswer {
  method: string;
  /** The request path, query included. */
  path: string;
  status: number;
  contentType: string | null;
  text: string;
  /** The parsed JSON body; parsed from `text` when left out. */
  body?: unknown;
}

const parseJson = (text: string): unknown => {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

const JSON_TYPE = 'application/json';
/** Operations whose success is not the JSON API (pages, assets): status and media type only. */
const NOT_JSON_API = new Set([
  'getCheckoutPage',
  'getCheckoutPanel',
  'getCheckoutAsset',
  'getApiReference',
  'getApiReferenceAsset',
  'getDashboard',
  'getDashboardAsset',
]);

const formatErrors = (errors: ErrorObject[] | null | undefined): string =>
  (errors ?? [])
    .slice(0, 10)
    .map((e) => `  ${e.instancePath || '(body)'} ${e.message ?? ''}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('\n');

const excerpt = (text: string): string => (text.length > 400 ? `${text.slice(0, 400)}…` : text);

/** Problems of one answer against the document ([] when it matches); `document` defaults to the committed one. */
export function problemsOf(answer: ObservedAnswer, document?: object): string[] {
  const { doc, routes, ajv, validators, genericError } = document ? compile(document as OpenApiDocument) : load();
  const method = answer.method.toLowerCase();
  const pathname = new URL(answer.path, 'http://x').pathname;
  const head = method === 'head';
  const lookup = head ? 'get' : method;
  const candidates = routes.filter((r) => r.pattern.test(pathname));
  const route = candidates.find((r) => r.method === lookup);
  const mediaType = answer.contentType?.split(';')[0]?.trim().toLowerCase() ?? null;
  const problems: string[] = [];

  if (!route) {
    // No operation: 404 for an unknown path, 405 for a known path with another method (OPTIONS included), with the
    // error shape either way, as the document's description says.
    const expected = candidates.length > 0 ? 405 : 404;
    if (answer.status !== expected) problems.push(`no operation for ${answer.method} ${pathname}: expected ${expected}, got ${answer.status}`);
    // Under /p the buyer's checkout answers a path it does not know with its HTML "no such page" (GET /p/{*rest}).
    const checkoutPage = pathname.startsWith('/p/') && answer.status === 404 && mediaType === 'text/html';
    if (answer.status >= 400 && !head && !checkoutPage) {
      if (mediaType !== JSON_TYPE) problems.push(`no operation for ${answer.method} ${pathname}: ${answer.status} is ${mediaType}, not ${JSON_TYPE}`);
      else {
        const body = answer.body ?? parseJson(answer.text);
        const code = expected === 405 ? 'common.err.method_not_allowed' : 'common.err.not_found';
        if (!genericError(body)) problems.push(`no operation for ${answer.method} ${pathname}: error shape\n${formatErrors(genericError.errors)}`);
        else if ((body as { error: { code: string } }).error.code !== code)
          problems.push(
            `no operation for ${answer.method} ${pathname}: ${answer.status} is ${code}, got ${(body as { error: { code: string } }).error.code}`,
          );
      }
    }
    return problems;
  }

  const name = `${route.operation.operationId} (${route.method.toUpperCase()} ${route.template})`;
  const listed = route.operation.responses[String(answer.status)];
  // A shared response is read, and its schema compiled, where components/responses holds it.
  const responsePointer = listed?.$ref ?? `${route.pointer}/responses/${answer.status}`;
  const response = listed?.$ref ? (resolve(doc, listed.$ref) as Response | undefined) : listed;
  if (!response) return [`${name}: status ${answer.status} is not documented (documented: ${Object.keys(route.operation.responses).join(', ')})`];
  if (head) return [];
  const content = response.content;
  if (!content) {
    if (answer.text !== '') problems.push(`${name} ${answer.status}: documented without a body, got ${excerpt(answer.text)}`);
    return problems;
  }
  if (!mediaType || !(mediaType in content)) {
    return [`${name} ${answer.status}: media type ${mediaType ?? '(none)'} is not documented (documented: ${Object.keys(content).join(', ')})`];
  }
  if (mediaType !== JSON_TYPE || (NOT_JSON_API.has(route.operation.operationId) && answer.status < 400)) return problems;
  const body = answer.body ?? parseJson(answer.text);
  if (body === undefined) return [`${name} ${answer.status}: the body is not JSON: ${excerpt(answer.text)}`];
  const pointer = `${responsePointer}/content/${escapePointer(JSON_TYPE)}/schema`;
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.getSchema(`${DOC_ID}${pointer}`);
    if (!validate) return [`${name} ${answer.status}: no schema at ${pointer}`];
    validators.set(pointer, validate);
  }
  if (!validate(body))
    problems.push(
      `${name} ${answer.status}: the body does not match the documented schema\n${formatErrors(validate.errors)}\nbody: ${excerpt(answer.text)}`,
    );
  return problems;
}

let validated = 0;

/** Throws (failing the test that received the answer) when the answer does not match the document. */
export function assertDocumented(answer: ObservedAnswer): void {
  const problems = problemsOf(answer);
  validated += 1;
  if (problems.length > 0) {
    throw new Error(`The answer to ${answer.method} ${answer.path} does not match ${documentPath()}:\n${problems.join('\n')}`);
  }
}

// Once per test file: how many answers were checked (and, with OPENAPI_VALIDATION_LOG set, a line appended there).
if (typeof afterAll === 'function') {
  afterAll(() => {
    const file = expect.getState().testPath ?? '(unknown)';
    const line = `openapi-validator: ${validated} answers validated against docs/openapi.json in ${file}\n`;
    process.stdout.write(line);
    if (process.env.OPENAPI_VALIDATION_LOG) appendFileSync(process.env.OPENAPI_VALIDATION_LOG, JSON.stringify({ file, validated }) + '\n');
  });
}

/**
 * Checks every answer of a typed client (@pl/client, openapi-fetch) as httpClient's are checked: wrap it where it is
 * made, `documented(createClient(...))`. A mismatch rejects the call, failing the test that made it.
 */
export function documented(client: ApiClient): ApiClient {
  client.use({
    async onResponse({ request, response }) {
      const url = new URL(request.url);
      const contentType = response.headers.get('content-type');
      assertDocumented({
        method: request.method,
        path: url.pathname + url.search,
        status: response.status,
        contentType,
        text: await response.clone().text(),
      });
      return undefined;
    },
  });
  return client;
}
