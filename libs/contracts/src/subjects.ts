import { z } from 'zod';
import { boundedText, linkStatus, positiveId, uuid } from './fields';
import { paymentLink, paymentLinkList } from './link';
import { shopView } from './shop';

/** A NATS request-reply subject with the contract of both directions. */
export interface SubjectContract<Req extends z.ZodType, Res extends z.ZodType> {
  readonly name: string;
  readonly request: Req;
  readonly response: Res;
}

const subject = <Req extends z.ZodType, Res extends z.ZodType>(name: string, request: Req, response: Res) =>
  ({ name, request, response }) as const satisfies SubjectContract<Req, Res>;

export const createLinkCommand = z.strictObject({
  shop_id: positiveId.optional(),
  amount_kopecks: z.number().int().min(1).max(9_999_999_999),
  order_id: boundedText(128).nullable(),
  description: boundedText(1024).nullable(),
  expires_in_minutes: z.number().int().min(1).max(43200),
});
export type CreateLinkCommand = z.infer<typeof createLinkCommand>;

export const listLinksCommand = z.strictObject({
  limit: z.number().int().min(1).max(100),
  cursor: z.string().nullable(),
  status: linkStatus.nullable(),
  shop_id: positiveId.nullable(),
  order_id: z.string().nullable(),
});
export type ListLinksCommand = z.infer<typeof listLinksCommand>;

export const linkIdCommand = z.strictObject({ id: uuid });

export const subjects = {
  linksCreate: subject('links.create', createLinkCommand, paymentLink),
  linksGet: subject('links.get', linkIdCommand, paymentLink),
  linksList: subject('links.list', listLinksCommand, paymentLinkList),
  linksCancel: subject('links.cancel', linkIdCommand, paymentLink),
  shopsGet: subject('shops.get', z.strictObject({ shop_id: positiveId }), shopView),
  shopsByCashierKey: subject('shops.by_cashier_key', z.strictObject({ cashier_key: z.string().min(1).max(256) }), shopView),
} as const;
