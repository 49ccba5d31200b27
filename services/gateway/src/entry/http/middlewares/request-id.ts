import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { activeSpan } from '@pl/telemetry';
import { modeLabelOf, setRequestId, setRequestSpan } from '../context';

/**
 * 1..128 characters of `[A-Za-z0-9._:-]`: what ids (UUIDs, ULIDs, trace ids, `svc:123.4`) are made of, and
 * nothing that could mean something to a header, a log line, an HTML page or a shell (quotes, spaces, `<`).
 */
export const isValidRequestId = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(value);

/** The caller's X-Request-Id when it is acceptable, else a fresh UUID. */
export const chooseRequestId = (incoming: string | undefined): string => (isValidRequestId(incoming) ? incoming : randomUUID());

/**
 * Gives every request an id (echoed in `X-Request-Id`, passed on over NATS) and writes one access
 * log line per response: method, path, status, duration, mode (`none` when unauthenticated). Never headers,
 * query or body, nor a caller's id that was refused (its length at most). Being the first middleware, it also
 * takes the request's HTTP server span, while that is still the active one, for the mode to be put on.
 */
export function requestId(log: Logger): RequestHandler {
  // The line is made of the scalars named below, none of them a credential, so it skips the logger's redaction: its
  // wildcard paths (`*.token`, …) would copy and re-parse every one of them on every request (a fortieth of the
  // gateway's CPU under load) to find nothing.
  const accessLog = log.child({}, { redact: [] });
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const id = chooseRequestId(incoming);
    // A refused id is caller-controlled text: only its length is kept, to tell a broken client from none.
    const replaced = incoming !== undefined && incoming !== id ? { replaced_request_id_length: incoming.length } : {};
    setRequestId(res, id);
    setRequestSpan(res, activeSpan());
    res.set('X-Request-Id', id);
    // Responses carry credentials (session tokens) or merchant data: never cache them anywhere.
    res.set('Cache-Control', 'no-store');
    const started = process.hrtime.bigint();
    // Read now: by the time the response finishes, a mounted router has made req.path relative to its mount point.
    const path = req.path;
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      accessLog.info(
        {
          request_id: id,
          ...replaced,
          method: req.method,
          path,
          status: res.statusCode,
          mode: modeLabelOf(res),
          duration_ms: Math.round(durationMs * 10) / 10,
        },
        'request',
      );
    });
    next();
  };
}
