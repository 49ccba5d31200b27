import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { IdempotencyClaim } from '@pl/contracts';
import { parseOrThrow } from '../../domain/validation';
import type { IdempotencyStep } from './middlewares/idempotency';
import { readJsonBody } from './middlewares/json-body';
import { assertQueryDecodable } from './strict-query';

/** A route that takes a JSON body. */
export interface BodyRoute<B extends z.ZodType> {
  /**
   * The body's schema, or a function that picks it from what authentication found (a create needs a shop_id
   * unless a cashier key names the shop).
   */
  body: B | ((res: Response) => B);
  /** For a route that takes no body but refuses any other (cancel, resend): what an absent or empty body counts as. */
  emptyBodyAs?: Record<string, never>;
  /** The Idempotency-Key step; it runs after validation, so an invalid request never claims a key. */
  idempotency?: IdempotencyStep;
  handle(input: { req: Request; res: Response; body: z.output<B>; idempotencyClaim: IdempotencyClaim | null }): Promise<void>;
}

/** A route that takes a query string. */
export interface QueryRoute<Q extends z.ZodType> {
  query: Q;
  handle(input: { req: Request; res: Response; query: z.output<Q> }): Promise<void>;
}

/**
 * A route's own steps, after authentication and rate limits, as one handler: the JSON body (415, 413, 400
 * invalid_json), its schema (400 validation_failed), the Idempotency-Key (a replay is answered there), then the
 * handler, which gets the input as its schema's output type: a value, not something read back from `res.locals`.
 */
export function route<B extends z.ZodType>(spec: BodyRoute<B>): RequestHandler;
/** A route's query string through its schema (400 validation_failed), then the handler with the parsed query. */
export function route<Q extends z.ZodType>(spec: QueryRoute<Q>): RequestHandler;
export function route(spec: BodyRoute<z.ZodType> | QueryRoute<z.ZodType>): RequestHandler {
  if ('query' in spec) {
    return async (req, res) => {
      assertQueryDecodable(req);
      await spec.handle({ req, res, query: parseOrThrow(spec.query, req.query, 'Query') });
    };
  }
  const { emptyBodyAs, idempotency } = spec;
  const readOptions = emptyBodyAs === undefined ? {} : { emptyAs: emptyBodyAs };
  return async (req, res) => {
    // The fingerprint of an Idempotency-Key is over the body as sent (parsed JSON), not over the validated value.
    const raw = await readJsonBody(req, res, readOptions);
    const body = parseOrThrow(typeof spec.body === 'function' ? spec.body(res) : spec.body, raw, 'Request body');
    let idempotencyClaim: IdempotencyClaim | null = null;
    if (idempotency) {
      const outcome = await idempotency(req, res, raw);
      if (outcome.answered) return;
      idempotencyClaim = outcome.claim;
    }
    await spec.handle({ req, res, body, idempotencyClaim });
  };
}
