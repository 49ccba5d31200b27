import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { HTTP_STATUS_BY_KIND, internal, isAppError, notFound, type AppError } from '@pl/errors';
import { requestIdOf, requestSpanOf } from '../context';

interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/** Errors thrown by express itself for a path it cannot decode (`%E0`): such a path names nothing. */
const isUndecodablePath = (e: unknown): boolean => e instanceof URIError || (e instanceof Error && e.message.includes('Failed to decode param'));

/**
 * Every error becomes an AppError. Unexpected ones (and `internal` errors from other services,
 * whose messages are not meant for merchants) are logged with a log id and answered generically;
 * the request's HTTP server span records them too, so the trace shows what the 500 was.
 */
export function toClientError(e: unknown, log: Logger, res: Response): AppError {
  if (isAppError(e) && e.kind !== 'internal') return e;
  if (isUndecodablePath(e)) return notFound('Resource not found');
  const logId = randomUUID();
  log.error({ err: e, log_id: logId, request_id: requestIdOf(res) }, 'unexpected error');
  requestSpanOf(res)?.recordException(e instanceof Error ? e : String(e));
  return internal(`Internal error (log id ${logId})`);
}

/** The one place that turns an error into an HTTP response: `{ error: { code, message, details? } }`. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const error = toClientError(err, log, res);
    const status = HTTP_STATUS_BY_KIND[error.kind];
    // A rate limiter has already said how long to wait; other 429s and 503s get a short default.
    if ((status === 503 || status === 429) && !res.get('Retry-After')) res.set('Retry-After', '1');
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    // Validation errors name their fields; a provider's refusal of a method (422) carries the provider's message so.
    if ((error.kind === 'validation' || error.kind === 'unprocessable') && error.details !== undefined) body.error.details = error.details;
    res.status(status).json(body);
  };
}
