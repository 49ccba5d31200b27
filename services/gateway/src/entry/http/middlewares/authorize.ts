import type { RequestHandler, Request, Response } from 'express';
import { forbidden } from '@pl/errors';
import { roleMay, type RoleAction } from '../../../domain/roles';
import { maybeMemberOf } from '../context';

/**
 * Makes sure the resource a refused request names exists (it throws 404 when not, or 403 when it is another
 * account's), so a refusal by role comes after existence, as every other refusal does.
 */
export type ExistenceProbe = (req: Request, res: Response) => Promise<unknown>;

/**
 * The role check of a session route, from the one table of `domain/roles.ts`: a member whose role may not do
 * `action` is 403 `common.err.forbidden`, after the named resource is known to exist (`probe`) and before any
 * state is looked at or changed. API keys and cashier keys are not members: the account's own credentials pass.
 */
export function allow(action: RoleAction, probe?: ExistenceProbe): RequestHandler {
  return async (req, res, next) => {
    const member = maybeMemberOf(res);
    if (member && !roleMay(member.role, action)) {
      if (probe) await probe(req, res);
      throw forbidden(`The ${member.role} role may not do this`);
    }
    next();
  };
}
