import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { setRequestId } from '../context';

/** 1..128 printable ASCII characters: safe to echo in a header and to log. */
export const isValidRequestId = (value: unknown): value is string => typeof value === 'string' && /^[\x20-\x7e]{1,128}$/.test(value);

/** The caller's X-Request-Id when it is acceptable, else a fresh UUID. */
export const chooseRequestId = (incoming: string | undefined): string => (isValidRequestId(incoming) ? incoming : randomUUID());

/**
 * Gives every request an id (echoed in `X-Request-Id`, passed on over NATS) and writes one access
 * log line per response: method, path, status, duration. Never headers, query or body.
 */
export function requestId(log: Logger): RequestHandler {
  return (req, res, next) => {
    const id = chooseRequestId(req.get('x-request-id'));
    setRequestId(res, id);
    res.set('X-Request-Id', id);
    // Responses carry credentials (session tokens) or merchant data: never cache them anywhere.
    res.set('Cache-Control', 'no-store');
    const started = process.hrtime.bigint();
    // Read now: by the time the response finishes, a mounted router has made req.path relative to its mount point.
    const path = req.path;
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        { request_id: id, method: req.method, path, status: res.statusCode, duration_ms: Math.round(durationMs * 10) / 10 },
        'request',
      );
    });
    next();
  };
}
