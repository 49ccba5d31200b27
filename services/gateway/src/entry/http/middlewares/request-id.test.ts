import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { setIdentity } from '../context';
import { chooseRequestId, isValidRequestId, requestId } from './request-id';

describe('request id', () => {
  it.each(['a', 'req-123', 'x'.repeat(128), '0f8fa0c2-5c1e-4d8b-9b1e-3c4f5a6b7c8d', 'svc:api.v1_retry-2', 'A.B:C-D_E'])('accepts %j', (id) => {
    expect(isValidRequestId(id)).toBe(true);
    expect(chooseRequestId(id)).toBe(id);
  });

  it.each([
    '',
    'x'.repeat(129),
    'a "b" <c>',
    'with space',
    'tab\there',
    'new\nline',
    'semi;colon',
    'slash/and\\back',
    '%0d%0a',
    'кириллица',
    '\u0000',
    '\u202e',
    'emoji-😀',
  ])('replaces %j with a fresh UUID', (id) => {
    expect(isValidRequestId(id)).toBe(false);
    expect(chooseRequestId(id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('makes a new id when none is sent', () => {
    expect(chooseRequestId(undefined)).not.toBe(chooseRequestId(undefined));
  });

  it('echoes a valid id and answers a hostile one with a fresh id, logging only its length', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const app = express()
      .use(requestId(log))
      .get('/x', (_req, res) => void res.status(204).end());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    try {
      const valid = await fetch(url, { headers: { 'X-Request-Id': 'order-42:retry.1' } });
      expect(valid.headers.get('x-request-id')).toBe('order-42:retry.1');
      const hostile = 'a "b" <c>';
      const replaced = await fetch(url, { headers: { 'X-Request-Id': hostile } });
      const fresh = replaced.headers.get('x-request-id');
      expect(fresh).toMatch(/^[0-9a-f-]{36}$/);
      await new Promise((resolve) => setImmediate(resolve));
      expect(lines[0]).toMatchObject({ request_id: 'order-42:retry.1' });
      expect(lines[0]).not.toHaveProperty('replaced_request_id_length');
      expect(lines[1]).toMatchObject({ request_id: fresh, replaced_request_id_length: hostile.length });
      expect(JSON.stringify(lines)).not.toContain('<c>');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 10_000);

  it('logs the full path of a request answered inside a mounted router', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const router = express.Router();
    router.post('/login', (_req, res) => void res.status(204).end());
    const app = express().use(requestId(log)).use('/api/v1/auth', router);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/auth/login?x=1`, { method: 'POST' });
      expect(res.status).toBe(204);
      await new Promise((resolve) => setImmediate(resolve));
      expect(lines).toEqual([expect.objectContaining({ msg: 'request', method: 'POST', path: '/api/v1/auth/login', status: 204 })]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 10_000);

  it('logs the mode the request acted in, none when it was not authenticated', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const app = express()
      .use(requestId(log))
      .get('/test', (_req, res) => {
        setIdentity(res, {
          kind: 'merchant',
          merchant_id: '7d0f5a6e-3b1c-4c39-9a57-0d5e4f1b2c3a',
          auth: 'api_key',
          mode: 'test',
          email_confirmed: true,
        });
        res.status(204).end();
      })
      .get('/anonymous', (_req, res) => void res.status(204).end());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await fetch(`${base}/test`);
      await fetch(`${base}/anonymous`);
      await new Promise((resolve) => setImmediate(resolve));
      expect(lines.map((l) => [l.path, l.mode])).toEqual([
        ['/test', 'test'],
        ['/anonymous', 'none'],
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 10_000);
});
