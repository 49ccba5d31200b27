import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import pino from 'pino';
import { invalidField } from '@pl/errors';
import type { Span } from '@pl/telemetry';
import { setRequestSpan } from '../context';
import { errorHandler } from './error-handler';

/** The part of a span the error handler touches, recorded. */
const recordingSpan = (): { span: Span; exceptions: unknown[] } => {
  const exceptions: unknown[] = [];
  const span = { setAttribute: () => span, recordException: (e: unknown) => void exceptions.push(e) } as unknown as Span;
  return { span, exceptions };
};

/** Answers one GET through `fail` and the error handler, with `span` as the request's span. */
async function answer(span: Span, fail: RequestHandler): Promise<{ status: number; body: { error: { code: string; message: string } } }> {
  const app = express()
    .use((_req, res, next) => {
      setRequestSpan(res, span);
      next();
    })
    .get('/', fail)
    .use(errorHandler(pino({ level: 'silent' })));
  const server = app.listen(0);
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
  } finally {
    server.close();
  }
}

describe('error handler', () => {
  it('records an unexpected error on the request span and answers a generic 500', async () => {
    const { span, exceptions } = recordingSpan();
    const boom = new TypeError('cannot read properties of undefined');
    const res = await answer(span, () => {
      throw boom;
    });
    expect(res.status).toBe(500);
    expect(res.body.error.message).toMatch(/^Internal error \(log id [0-9a-f-]{36}\)$/);
    expect(exceptions).toEqual([boom]);
  });

  it("records nothing for a client's error: the span's status code says it", async () => {
    const { span, exceptions } = recordingSpan();
    const res = await answer(span, () => {
      throw invalidField('limit', 'must be an integer');
    });
    expect(res.status).toBe(400);
    expect(exceptions).toEqual([]);
  });
});
