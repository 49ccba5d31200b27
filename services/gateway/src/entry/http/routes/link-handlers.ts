import type { RequestHandler, Response } from 'express';
import type { CreateLinkCommand } from '@pl/contracts';
import type { LinksClient } from '../../../data/links.client';
import { checkCancelBody, toCreateLinkCommand, toLinkId, toListLinksCommand } from '../../../domain/link-commands';
import { withPaymentsAlias } from '../../../domain/link-list-body';
import { commandOf, identityOf, requestIdOf } from '../context';
import { idempotencyClaimOf, sendLinkAnswer } from '../middlewares/idempotency';
import { validate } from '../middlewares/validate';

/** Validation of a create body; cashier keys carry their shop, so only they may leave shop_id out. */
export const validateCreate = (shopId: 'required' | 'unless-cashier'): RequestHandler =>
  validate((body, res) => toCreateLinkCommand(body, { requireShopId: shopId === 'required' || identityOf(res).auth !== 'cashier' }));

export const validateCancel: RequestHandler = validate((body) => {
  checkCancelBody(body);
  return {};
});

/** Answers with JSON the links service already serialized; the headers are those `res.json` would set. */
const sendJsonText = (res: Response, status: number, json: Buffer): void => {
  res.status(status).type('application/json').send(json);
};

export const createLink =
  (links: LinksClient): RequestHandler =>
  async (_req, res) => {
    const key = idempotencyClaimOf(res);
    const command = commandOf<CreateLinkCommand>(res);
    if (key) sendLinkAnswer(res, 201, await links.createOnce(identityOf(res), command, key, requestIdOf(res)));
    else sendJsonText(res, 201, await links.create(identityOf(res), command, requestIdOf(res)));
  };

export const getLink =
  (links: LinksClient): RequestHandler =>
  async (req, res) => {
    sendJsonText(res, 200, await links.get(identityOf(res), toLinkId(req.params.id), requestIdOf(res)));
  };

export const listLinks =
  (links: LinksClient): RequestHandler =>
  async (req, res) => {
    // The links service sends the links once; the interface's `payments` alias is added here.
    sendJsonText(res, 200, withPaymentsAlias(await links.list(identityOf(res), toListLinksCommand(req.query), requestIdOf(res))));
  };

export const cancelLink =
  (links: LinksClient): RequestHandler =>
  async (req, res) => {
    const key = idempotencyClaimOf(res);
    const id = toLinkId(req.params.id);
    if (key) sendLinkAnswer(res, 200, await links.cancelOnce(identityOf(res), id, key, requestIdOf(res)));
    else sendJsonText(res, 200, await links.cancel(identityOf(res), id, requestIdOf(res)));
  };
