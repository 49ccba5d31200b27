import { z } from 'zod';
import {
  createLinkBody,
  listLinksQuery,
  returnUrlProblem,
  uuid,
  type CreateLinkBody,
  type CreateLinkCommand,
  type ListLinksCommand,
} from '@pl/contracts';
import { notFound } from '@pl/errors';

const DEFAULT_EXPIRES_IN_MINUTES = 1440;
const DEFAULT_LIST_LIMIT = 20;

const toCreateLinkCommand = (parsed: CreateLinkBody): CreateLinkCommand => {
  const command: CreateLinkCommand = {
    amount_kopecks: parsed.amount,
    order_id: parsed.order_id ?? null,
    description: parsed.description ?? null,
    expires_in_minutes: parsed.expires_in_minutes ?? DEFAULT_EXPIRES_IN_MINUTES,
    return_url: parsed.return_url ?? null,
  };
  if (parsed.shop_id !== undefined) command.shop_id = parsed.shop_id;
  return command;
};

export interface CreateLinkOptions {
  /** Account keys and sessions name the shop; cashier keys carry theirs, so a body shop_id is optional there. */
  requireShopId: boolean;
  /** An `http` return_url, only where the deployment allows private webhook targets (local runs, tests). */
  allowHttpReturnUrl: boolean;
}

/** A transform runs only on a body that passed its schema, so a missing shop_id is named only then. */
const buildCreateLinkInput = ({ requireShopId, allowHttpReturnUrl }: CreateLinkOptions) =>
  createLinkBody.transform((parsed, ctx) => {
    if (requireShopId && parsed.shop_id === undefined) {
      ctx.issues.push({ code: 'invalid_type', expected: 'number', input: undefined, path: ['shop_id'], message: 'shop_id is required' });
      return z.NEVER;
    }
    // The contract takes http and https alike; this deployment's rule is applied here, still as a validation error.
    const returnUrl = parsed.return_url ?? null;
    const problem = returnUrl === null ? null : returnUrlProblem(returnUrl, { allowHttp: allowHttpReturnUrl });
    if (problem !== null) {
      ctx.issues.push({ code: 'custom', input: returnUrl, path: ['return_url'], message: problem });
      return z.NEVER;
    }
    return toCreateLinkCommand(parsed);
  });

const createLinkInputs = new Map<string, ReturnType<typeof buildCreateLinkInput>>();

/** The create body, parsed into the command the links service takes; one schema per combination of options. */
export const createLinkInput = (options: CreateLinkOptions) => {
  const key = `${options.requireShopId}:${options.allowHttpReturnUrl}`;
  let schema = createLinkInputs.get(key);
  if (schema === undefined) {
    schema = buildCreateLinkInput(options);
    createLinkInputs.set(key, schema);
  }
  return schema;
};

/** The list query, parsed into the links service's command with its defaults. */
export const listLinksInput = listLinksQuery.transform((q): ListLinksCommand => ({
  limit: q.limit ?? DEFAULT_LIST_LIMIT,
  cursor: q.cursor ?? null,
  status: q.status ?? null,
  shop_id: q.shop_id ?? null,
  order_id: q.order_id ?? null,
}));

/** A path id that is not a UUID cannot name a link, so it is simply not found. */
export function toLinkId(id: unknown): string {
  if (typeof id !== 'string' || !uuid.safeParse(id).success) throw notFound('Payment link not found');
  return id.toLowerCase();
}
