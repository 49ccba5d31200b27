import type { RequestHandler, Response } from 'express';
import { cancelLinkBody } from '@pl/contracts';
import type { LinksClient } from '../../../data/links.client';
import { createLinkInput, listLinksInput, toLinkId } from '../../../domain/link-commands';
import { withPaymentsAlias } from '../../../domain/link-list-body';
import { identityOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { idempotency, pathIdAndBody, sendLinkAnswer } from '../middlewares/idempotency';
import { route } from '../route';

/** Answers with JSON the links service already serialized; the headers are those `res.json` would set. */
const sendJsonText = (res: Response, status: number, json: Buffer): void => {
  res.status(status).type('application/json').send(json);
};

/**
 * A create route; `idempotencyRoute` names it for Idempotency-Keys. Cashier keys carry their shop, so only they may leave
 * shop_id out, and only where `shopId` says so.
 */
export const createLink = (
  deps: Pick<HttpDeps, 'links' | 'idempotency' | 'log' | 'allowHttpReturnUrl'>,
  idempotencyRoute: string,
  shopId: 'required' | 'unless-cashier',
): RequestHandler =>
  route({
    body: (res) =>
      createLinkInput({
        requireShopId: shopId === 'required' || identityOf(res).auth !== 'cashier',
        allowHttpReturnUrl: deps.allowHttpReturnUrl,
      }),
    idempotency: idempotency(deps.idempotency, idempotencyRoute, deps.log),
    handle: async ({ res, body, idempotencyClaim }) => {
      if (idempotencyClaim) sendLinkAnswer(res, 201, await deps.links.createOnce(identityOf(res), body, idempotencyClaim, requestIdOf(res)));
      else sendJsonText(res, 201, await deps.links.create(identityOf(res), body, requestIdOf(res)));
    },
  });

export const getLink =
  (links: LinksClient): RequestHandler =>
  async (req, res) => {
    sendJsonText(res, 200, await links.get(identityOf(res), toLinkId(req.params.id), requestIdOf(res)));
  };

export const listAttempts =
  (links: LinksClient): RequestHandler =>
  async (req, res) => {
    sendJsonText(res, 200, await links.attempts(identityOf(res), toLinkId(req.params.id), requestIdOf(res)));
  };

export const listLinks = (links: LinksClient): RequestHandler =>
  route({
    query: listLinksInput,
    handle: async ({ res, query }) => {
      // The links service sends the links once; the interface's `payments` alias is added here.
      sendJsonText(res, 200, withPaymentsAlias(await links.list(identityOf(res), query, requestIdOf(res))));
    },
  });

/** A cancel route: an empty JSON object or no body; an Idempotency-Key is bound to the link it names. */
export const cancelLink = (deps: Pick<HttpDeps, 'links' | 'idempotency' | 'log'>, idempotencyRoute: string): RequestHandler =>
  route({
    body: cancelLinkBody,
    emptyBodyAs: {},
    idempotency: idempotency(deps.idempotency, idempotencyRoute, deps.log, pathIdAndBody),
    handle: async ({ req, res, idempotencyClaim }) => {
      const id = toLinkId(req.params.id);
      if (idempotencyClaim) sendLinkAnswer(res, 200, await deps.links.cancelOnce(identityOf(res), id, idempotencyClaim, requestIdOf(res)));
      else sendJsonText(res, 200, await deps.links.cancel(identityOf(res), id, requestIdOf(res)));
    },
  });
