import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { chooseRequestId, isValidRequestId, requestId } from './request-id';

describe('request id', () => {
  it.each(['a', 'req-123', 'x'.repeat(128), 'with space ~!'])('accepts %j', (id) => {
    expect(isValidRequestId(id)).toBe(true);
    expect(chooseRequestId(id)).toBe(id);
  });

  it.each(['', 'x'.repeat(129), 'tab\there', 'new\nline', 'кириллица', '\u0000'])('replaces %j with a fresh UUID', (id) => {
    expect(isValidRequestId(id)).toBe(false);
    expect(chooseRequestId(id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('makes a new id when none is sent', () => {
    expect(chooseRequestId(undefined)).not.toBe(chooseRequestId(undefined));
  });

  it('logs the full path of a request answered inside a mounted router', async () => {
    const lines: Array<Record<string, unknown>> = [];
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
});
