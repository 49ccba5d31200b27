import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { chain } from './chain';

/** Serves `handler` on GET / with an error handler that answers 500 and the error's message. */
async function serve(handler: RequestHandler): Promise<{ get(): Promise<{ status: number; text: string }>; close(): Promise<void> }> {
  const app = express();
  app.get('/', handler, (_req, res) => {
    res.status(299).send('fell through');
  });
  const onError: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
    res.status(500).send(err instanceof Error ? err.message : String(err));
  };
  app.use(onError);
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    async get() {
      const res = await fetch(url);
      return { status: res.status, text: await res.text() };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('chain', () => {
  it('runs sync and async steps in order, and passes on to the next handler when every step calls next', async () => {
    const seen: string[] = [];
    const app = await serve(
      chain(
        (_req, _res, next) => {
          seen.push('sync');
          next();
        },
        async (_req, _res, next) => {
          await new Promise((r) => setImmediate(r));
          seen.push('async');
          next();
        },
      ),
    );
    try {
      expect(await app.get()).toEqual({ status: 299, text: 'fell through' });
      expect(seen).toEqual(['sync', 'async']);
    } finally {
      await app.close();
    }
  });

  it('stops at a step that answers, sync or async', async () => {
    const after = jest.fn();
    for (const answering of [
      ((_req, res) => {
        res.status(201).send('answered');
      }) as RequestHandler,
      (async (_req, res) => {
        await new Promise((r) => setImmediate(r));
        res.status(201).send('answered');
      }) as RequestHandler,
    ]) {
      const app = await serve(chain(answering, after));
      try {
        expect(await app.get()).toEqual({ status: 201, text: 'answered' });
      } finally {
        await app.close();
      }
    }
    expect(after).not.toHaveBeenCalled();
  });

  it('hands a throw, a rejection or next(err) to the error handler and runs nothing after it', async () => {
    const after = jest.fn();
    const failing: [RequestHandler, string][] = [
      [
        () => {
          throw new Error('thrown');
        },
        'thrown',
      ],
      [
        async () => {
          throw new Error('rejected');
        },
        'rejected',
      ],
      [(_req, _res, next) => next(new Error('passed to next')), 'passed to next'],
    ];
    for (const [step, message] of failing) {
      const app = await serve(chain(step, after));
      try {
        expect(await app.get()).toEqual({ status: 500, text: message });
      } finally {
        await app.close();
      }
    }
    expect(after).not.toHaveBeenCalled();
  });
});
