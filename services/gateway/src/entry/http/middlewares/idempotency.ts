import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { MerchantIdentity } from '@pl/contracts';
import { idempotencyConflict } from '@pl/errors';
import type { IdempotencyLease, IdempotencyStore } from '../../../data/idempotency.store';
import { bodyFingerprint } from '../../../domain/canonical-json';
import { validationError } from '../../../domain/validation';
import { bodyOf, identityOf } from '../context';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** 1..255 printable ASCII characters. */
export const isValidIdempotencyKey = (key: string): boolean => /^[\x20-\x7e]{1,255}$/.test(key);

/**
 * Who a key belongs to. A cashier key acts for one shop, and two shops of one merchant may well
 * reuse the same key values (their order numbers), so the shop is part of the scope too.
 */
export const idempotencyScope = (identity: MerchantIdentity, route: string): string =>
  identity.shop_id !== undefined ? `${identity.merchant_id}:shop-${identity.shop_id}:${route}` : `${identity.merchant_id}:${route}`;

/** The stored form of a response body: replays answer it with `res.json`, so JSON text is kept parsed. */
const storedBody = (body: unknown): unknown => {
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) return body;
  const text = body.toString();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/**
 * Keeps the response of the request that claimed the key, or frees the key after a 5xx so a retry
 * can run. The response waits for the store, so a retry right after it sees the result, not the
 * in-progress marker. A store failure never withholds a response the merchant must see. It hooks
 * `res.send`, which `res.json` ends in too, so JSON passed on as text is kept as well.
 */
function settleOnResponse(res: Response, store: IdempotencyStore, lease: IdempotencyLease, log: Logger): void {
  let settled = false;
  const send = res.send.bind(res);
  res.send = (body?: unknown) => {
    if (settled) return send(body);
    settled = true;
    const status = res.statusCode;
    const work = status >= 500 ? store.release(lease) : store.complete(lease, status, storedBody(body));
    work
      .catch((err: unknown) => log.warn({ err, status }, 'could not settle idempotency key'))
      .finally(() => send(body));
    return res;
  };
  res.on('close', () => {
    if (!settled) void store.release(lease).catch(() => undefined);
  });
}

/** Idempotency-Key handling for a create route; `route` names the route within the merchant's scope. */
export function idempotency(store: IdempotencyStore, route: string, log: Logger): RequestHandler {
  return async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (key === undefined) return next();
    if (!isValidIdempotencyKey(key)) {
      throw validationError(
        [{ field: IDEMPOTENCY_HEADER, code: 'invalid_format', message: 'must be 1 to 255 printable ASCII characters' }],
        'Idempotency-Key header',
      );
    }
    const claim = await store.claim(idempotencyScope(identityOf(res), route), key, bodyFingerprint(bodyOf(res)));
    switch (claim.outcome) {
      case 'replay':
        res.set('Idempotent-Replayed', 'true').status(claim.status).json(claim.body);
        return;
      case 'conflict':
        throw idempotencyConflict(
          claim.reason === 'in_progress'
            ? 'A request with this Idempotency-Key is still in progress; retry later'
            : 'This Idempotency-Key was already used with a different request body',
        );
      case 'claimed':
        settleOnResponse(res, store, claim.lease, log);
        next();
    }
  };
}
