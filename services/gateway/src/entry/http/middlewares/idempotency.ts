import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { idempotencyScope, type IdempotencyClaim, type IdempotentLinkReply } from '@pl/contracts';
import { idempotencyConflict, secretNotReplayed } from '@pl/errors';
import { keyDigest, type IdempotencyLease, type IdempotencyStore } from '../../../data/idempotency.store';
import { bodyFingerprint } from '../../../domain/canonical-json';
import { validationError } from '../../../domain/validation';
import { identityOf } from '../context';

const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1..255 printable ASCII characters. */
export const isValidIdempotencyKey = (key: string): boolean => /^[\x20-\x7e]{1,255}$/.test(key);

/** Who a key belongs to (merchant, shop for a cashier key, route): one rule for this cache and the links service. */
export { idempotencyScope };

/** What a key binds a request to: a create's body; for a call on one resource (a cancel, a reissue, a rotation), the id its path names too (see {@link pathIdAndBody}). */
export type FingerprintSource = (req: Request, body: unknown) => unknown;
const bodyOnly: FingerprintSource = (_req, body) => body;
/** Such a body is often empty: the key is bound to the resource too, so reusing it for another one is a conflict. */
export const pathIdAndBody: FingerprintSource = (req, body) => ({ id: req.params.id ?? '', body });

/**
 * What the idempotency step decided: the request was answered here (a replay), or it goes on, with the key it
 * claimed (as the links service keeps it, for the handler to send along), or null for a request without one.
 */
type IdempotencyOutcome = { answered: true } | { answered: false; claim: IdempotencyClaim | null };

/**
 * The idempotency step of a route, after validation (an invalid request never claims a key). `body` is the JSON
 * body as parsed, before validation: the fingerprint is over what the client sent.
 */
export type IdempotencyStep = (req: Request, res: Response, body: unknown) => Promise<IdempotencyOutcome>;

/** Answers with the links service's link; its replays are marked as this cache's are. */
export function sendLinkAnswer(res: Response, status: number, answer: IdempotentLinkReply): void {
  if (answer.replayed) res.set(REPLAYED_HEADER, 'true');
  res.status(status).json(answer.link);
}

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
 * Keeps the response of a request that claimed the key and succeeded (2xx), or frees the key after any other
 * answer or when the caller left before its answer, so a retry runs anew. A refusal is not the key's answer: it
 * changed nothing, and what it depended on can change (a link paid since a 409 `not_paid`, funds that arrived since
 * a 422 `insufficient_balance`), as the links service keeps only successes too (ADR 3). Freeing is safe because this
 * cache is not the guard: a retry of a create (or cancel) the links service did make reaches it and gets the first
 * answer back. The response
 * waits for the store, so a retry right after it sees the result, not the in-progress marker. A store failure
 * never withholds a response the merchant must see. It hooks `res.send`, which `res.json` ends in too, so
 * JSON passed on as text is kept as well.
 */
function settleOnResponse(res: Response, store: IdempotencyStore, lease: IdempotencyLease, log: Logger, revealsSecret: boolean): void {
  let settled = false;
  const send = res.send.bind(res);
  res.send = (body?: unknown) => {
    if (settled) return send(body);
    settled = true;
    const status = res.statusCode;
    // A success that revealed a secret is kept without its body: the secret never reaches Redis.
    const kept = revealsSecret && isSuccess(status) ? null : storedBody(body);
    const work = isSuccess(status) ? store.complete(lease, status, kept) : store.release(lease);
    work.catch((err: unknown) => log.warn({ err, status }, 'could not settle idempotency key')).finally(() => send(body));
    return res;
  };
  res.on('close', () => {
    if (!settled) void store.release(lease).catch(() => undefined);
  });
}

const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/**
 * Idempotency-Key handling for a create or cancel route; `route` names the route within the merchant's scope.
 * Replays this cache holds are answered here; a claimed key goes on with the request to the links service.
 */
export function idempotency(store: IdempotencyStore, route: string, log: Logger, bindTo: FingerprintSource = bodyOnly): IdempotencyStep {
  return idempotencyStep(store, route, log, bindTo, false);
}

/**
 * Idempotency-Key handling for a call whose success reveals a secret (API key create and reissue, webhook secret
 * rotation, cashier-key reissue): a secret is shown once, so a replay of a success answers 409
 * `common.err.idempotency_conflict` (`secretNotReplayed`) and the stored response keeps no body. A refusal
 * keeps nothing, as on every route; a fresh key runs the call. Use as `route({ ..., idempotency: revealsSecret(...) })`.
 */
export function revealsSecret(store: IdempotencyStore, route: string, log: Logger, bindTo: FingerprintSource = bodyOnly): IdempotencyStep {
  return idempotencyStep(store, route, log, bindTo, true);
}

function idempotencyStep(store: IdempotencyStore, route: string, log: Logger, bindTo: FingerprintSource, revealing: boolean): IdempotencyStep {
  return async (req, res, body) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (key === undefined) return { answered: false, claim: null };
    if (!isValidIdempotencyKey(key)) {
      throw validationError(
        [{ field: IDEMPOTENCY_HEADER, code: 'invalid_format', message: 'must be 1 to 255 printable ASCII characters' }],
        'Idempotency-Key header',
      );
    }
    const fingerprint = bodyFingerprint(bindTo(req, body));
    const claim = await store.claim(idempotencyScope(identityOf(res), route), key, fingerprint);
    switch (claim.outcome) {
      case 'replay':
        if (revealing && isSuccess(claim.status)) throw secretNotReplayed();
        res.set(REPLAYED_HEADER, 'true').status(claim.status).json(claim.body);
        return { answered: true };
      case 'conflict':
        throw claim.reason === 'in_progress'
          ? idempotencyConflict('A request with this Idempotency-Key is still in progress; retry later')
          : idempotencyConflict();
      case 'claimed':
        settleOnResponse(res, store, claim.lease, log, revealing);
        return { answered: false, claim: { route, key_sha256: keyDigest(key), fingerprint } };
    }
  };
}
