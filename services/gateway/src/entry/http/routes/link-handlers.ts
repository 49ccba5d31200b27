import type { RequestHandler } from 'express';
import type { CreateLinkCommand } from '@pl/contracts';
import type { LinksClient } from '../../../data/links.client';
import { checkCancelBody, toCreateLinkCommand, toLinkId, toListLinksCommand } from '../../../domain/link-commands';
import { commandOf, identityOf, requestIdOf } from '../context';
import { validate } from '../middlewares/validate';

/** Validation of a create body; cashier keys carry their shop, so only they may leave shop_id out. */
export const validateCreate = (shopId: 'required' | 'unless-cashier'): RequestHandler =>
  validate((body, res) =>
    toCreateLinkCommand(body, { requireShopId: shopId === 'required' || identityOf(res).auth !== 'cashier' }),
  );

export const validateCancel: RequestHandler = validate((body) => {
  checkCancelBody(body);
  return {};
});

export const createLink =
  (links: LinksClient): RequestHandler =>
  async (_req, res) => {
    const link = await links.create(identityOf(res), commandOf<CreateLinkCommand>(res), requestIdOf(res));
    res.status(201).json(link);
  };

export const getLink =
  (links: LinksClient): RequestHandler =>
  async (req, res) => {
    res.json(await links.get(identityOf(res), toLinkId(req.params.id), requestIdOf(res)));
  };

export const listLinks =
  (links: LinksClient): RequestHandler =>
  async (req, res) => {
    res.json(await links.list(identityOf(res), toListLinksCommand(req.query), requestIdOf(res)));
  };

export const cancelLink =
  (links: LinksClient): RequestHandler =>
  async (req, res) => {
    res.json(await links.cancel(identityOf(res), toLinkId(req.params.id), requestIdOf(res)));
  };
