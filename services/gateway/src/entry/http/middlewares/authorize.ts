import type { RequestHandler, Request, Response } from 'express';
import { forbidden, stepUpRequired, twoFactorRequired } from '@pl/errors';
import type { AuditRecorder } from '../../../domain/audit';
import { roleMay, type RoleAction } from '../../../domain/roles';
import { STEP_UP_ROUTES, stepUpVerdict, type StepUpRoute } from '../../../domain/step-up';
import { identityOf, maybeMemberOf, secondFactorOf } from '../context';

/**
 * Makes sure the resource a refused request names exists (it throws 404 when not, or 403 when it is another
 * account's), so a refusal by role comes after existence, as every other refusal does.
 */
export type ExistenceProbe = (req: Request, res: Response) => Promise<unknown>;

/**
 * The role check of a session route, from the one table of `domain/roles.ts`: a member whose role may not do
 * `action` is 403 `common.err.forbidden`, after the named resource is known to exist (`probe`) and before any
 * state is looked at or changed. API keys and cashier keys are not members: the account's own credentials pass.
 *
 * Then step-up, from the one table of `domain/step-up.ts` keyed by the route: a session route there needs a second
 * factor verified in the last 10 minutes (403 `auth.err.step_up_required`; `auth.err.two_factor_required` for a user
 * with none). The role comes first, so a role that may never do the action is not asked for a factor. A `has_second_factor`
 * entry steps up only a user who has one; a refund over the limit is checked by its route, once it knows the amount.
 */
export function allow(action: RoleAction, probe?: ExistenceProbe): RequestHandler {
  return async (req, res, next) => {
    const member = maybeMemberOf(res);
    if (member && !roleMay(member.role, action)) {
      if (probe) await probe(req, res);
      throw forbidden(`The ${member.role} role may not do this`);
    }
    const stepUp = stepUpRouteOf(req);
    if (stepUp && (!stepUp.condition || (stepUp.condition === 'has_second_factor' && secondFactorOf(res)?.enrolled === true))) {
      assertSteppedUp(res);
    }
    next();
  };
}

/** The step-up entry of the route a request matched, if any (`METHOD /base/path` as Express mounted it). */
function stepUpRouteOf(req: Request): StepUpRoute | undefined {
  // Express types the matched route as `any`; its `path` is the pattern the router was given.
  const pattern = (req.route as { path?: unknown } | undefined)?.path;
  const path = typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : req.baseUrl;
  return STEP_UP_ROUTES[`${req.method} ${path.length > 1 ? path.replace(/\/$/, '') : path}`];
}

/**
 * Refuses a session whose second factor was not verified in the step-up window; API keys and cashier keys pass (they
 * are not sessions). For the table's conditional entries, the route calls it once the condition holds.
 */
export function assertSteppedUp(res: Response): void {
  const state = secondFactorOf(res);
  if (!state) return;
  const verdict = stepUpVerdict(state);
  if (verdict === 'two_factor_required') throw twoFactorRequired('This action needs a second factor: enroll one first');
  if (verdict === 'step_up_required') throw stepUpRequired();
}

/**
 * Records a step-up action done elsewhere (the links service) in the audit log, as its table entry names it, once it
 * succeeded and before the answer goes: the route calls it after the change. The subject is the path's id, or what the
 * action made (`made`: a new payout's or destination's id).
 */
export async function recordStepUpAction(req: Request, res: Response, audit: AuditRecorder, made?: string): Promise<void> {
  const entry = stepUpRouteOf(req);
  const member = maybeMemberOf(res);
  if (!entry?.audit || !member) return;
  const subject = made ?? (typeof req.params.id === 'string' ? req.params.id : null);
  await audit.record({ merchantId: identityOf(res).merchant_id, type: entry.audit, ip: req.ip ?? null, subject, userId: member.userId });
}
