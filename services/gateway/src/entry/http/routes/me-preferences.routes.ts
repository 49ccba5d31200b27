import { Router, type Response } from 'express';
import { updateMemberPreferencesBody, type MemberPreferences } from '@pl/contracts';
import { unauthorized } from '@pl/errors';
import type { HttpDeps } from '../deps';
import { identityOf, memberOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/** The answer of both methods; a membership gone since the session was checked ends the session, as elsewhere. */
function answer(res: Response, optedIn: boolean | null): void {
  if (optedIn === null) throw unauthorized('Missing, invalid or expired session');
  const view: MemberPreferences = { daily_report_mail: optedIn };
  res.json(view);
}

/**
 * `/api/v1/me/preferences`: the signed-in member's own settings in the session's account, today the daily report
 * mail (docs/adr/0049). Only a role that reads reports has it (roles.ts `read_money`; others 403 as on the report).
 * No step-up: it changes what the member is mailed, not who may do what.
 */
export function mePreferencesRoutes(deps: HttpDeps): Router {
  const member = [authenticateSession(deps), limitByCredential(deps.rateLimits), allow('read_money')];
  const router = Router();
  router
    .route('/')
    .get(
      chain(...member, async (_req, res) => {
        answer(res, await deps.dailyReportMail.optedIn(memberOf(res).userId, identityOf(res).merchant_id));
      }),
    )
    .patch(
      chain(
        ...member,
        route({
          body: updateMemberPreferencesBody,
          handle: async ({ res, body }) => {
            answer(res, await deps.dailyReportMail.setOptedIn(memberOf(res).userId, identityOf(res).merchant_id, body.daily_report_mail));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET', 'PATCH']));
  return router;
}
