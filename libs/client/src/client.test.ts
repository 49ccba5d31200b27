import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createClient } from './index';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const ROOT = join(__dirname, '..', '..', '..');

/** A real HTTP server that records what it got and answers what the test queued. */
let server: Server;
let baseUrl = '';
const seen: Seen[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(answer.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
  answer = { status: 200, body: {} };
});
const last = (): Seen => {
  const s = seen.at(-1);
  if (!s) throw new Error('no request reached the server');
  return s;
};

describe('@pl/client', () => {
  it('src/schema.ts is what openapi-typescript makes of docs/openapi.json (npm run openapi rewrites it)', () => {
    // In a Node process of its own: openapi-typescript's CommonJS build requires ES modules, which Node loads and
    // Jest's module system does not.
    const script =
      "require('./libs/client/src/generate').renderClientSchema(require('node:fs').readFileSync('docs/openapi.json', 'utf8'))" +
      '.then((s) => process.stdout.write(s))';
    const generated = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(readFileSync(join(__dirname, 'schema.ts'), 'utf8')).toBe(generated);
  });

  it('sends the API key pair, asks for JSON and answers typed data', async () => {
    answer = { status: 200, body: { shops: [], has_more: false, next_cursor: null } };
    const client = createClient(baseUrl, { auth: { kind: 'apiKey', key: 'pk_1', secret: 'sk_1' } });
    const { data, error } = await client.GET('/merchant/v1/shops', { params: { query: { limit: '5' } } });
    expect(error).toBeUndefined();
    expect(data).toEqual({ shops: [], has_more: false, next_cursor: null });
    expect(last()).toMatchObject({ method: 'GET', url: '/merchant/v1/shops?limit=5' });
    expect(last().headers).toMatchObject({ 'x-api-key': 'pk_1', 'x-api-secret': 'sk_1', accept: 'application/json' });
    expect(last().headers.authorization).toBeUndefined();
  });

  it('sends a cashier key as a Bearer token and the body as JSON', async () => {
    const client = createClient(baseUrl, { auth: { kind: 'cashier', key: 'svc_live_abc' } });
    await client.POST('/api/v1/merchant/payments', { body: { amount: '10.50', description: 'Coffee' } });
    expect(last().method).toBe('POST');
    expect(last().headers).toMatchObject({ authorization: 'Bearer svc_live_abc', 'content-type': 'application/json' });
    expect(JSON.parse(last().body)).toEqual({ amount: '10.50', description: 'Coffee' });
  });

  it('sends a session as a Bearer token, or as the sid cookie with the given Origin', async () => {
    await createClient(baseUrl, { auth: { kind: 'session', token: 'sess_1' } }).GET('/api/v1/me');
    expect(last().headers.authorization).toBe('Bearer sess_1');
    const cookie = createClient(baseUrl, { auth: { kind: 'session', sid: 'sid_1' }, headers: { Origin: baseUrl } });
    await cookie.POST('/api/v1/shops/{id}/webhook-test', { params: { path: { id: 'shop 1' } } });
    expect(last().url).toBe('/api/v1/shops/shop%201/webhook-test');
    expect(last().headers).toMatchObject({ cookie: 'sid=sid_1', origin: baseUrl });
    expect(last().headers.authorization).toBeUndefined();
  });

  it('answers an error body as a typed error, with no data', async () => {
    answer = {
      status: 400,
      body: { error: { code: 'common.err.validation_failed', message: 'Invalid', details: [{ field: 'email', code: 'too_small', message: 'x' }] } },
    };
    const { data, error, response } = await createClient(baseUrl).POST('/api/v1/auth/login', { body: { email: '', password: '' } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    expect(error?.error.code).toBe('common.err.validation_failed');
    expect(error?.error.details?.[0]?.field).toBe('email');
    expect(last().headers.cookie).toBeUndefined();
  });
});
