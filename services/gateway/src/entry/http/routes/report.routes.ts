import { Router } from 'express';
import { summaryQuery, SUMMARY_DAYS_DEFAULT } from '@pl/contracts';
import { identityOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow, type ExistenceProbe } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

const summaryInput = summaryQuery.transform((q) => ({ shop_id: q.shop_id ?? null, days: q.days ?? SUMMARY_DAYS_DEFAULT }));

/**
 * `/api/v1/reports/summary`, dashboard session: the Home page's last days at a glance (docs/reports.md). It needs
 * `read_money`, as the balance does: gross volume and refunds are the shop's money, and counts without them are
 * not worth a second route (a role without it, the developer, lands on the links page instead). A named shop is
 * judged first (404, 403), as on the balance, then the role.
 */
export function sessionReportRoutes(deps: HttpDeps): Router {
  const router = Router();
  const shopExists: ExistenceProbe = async (req, res) => {
    const query = summaryQuery.safeParse(req.query);
    if (query.success && query.data.shop_id !== undefined) await deps.shops.read(identityOf(res), query.data.shop_id, requestIdOf(res));
  };
  router
    .route('/reports/summary')
    .get(
      chain(
        authenticateSession(deps),
        limitByCredential(deps.rateLimits),
        allow('read_money', shopExists),
        route({
          query: summaryInput,
          handle: async ({ res, query }) => {
            res.json(await deps.links.summary(identityOf(res), query, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET']));
  return router;
}
