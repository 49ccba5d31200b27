import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router, type RequestHandler, type Response } from 'express';
import { DAILY_REPORT_PAGE_MAX, dailyReportQuery, type DailyReportCommand, type DailyReportPage, type DailyReportRow } from '@pl/contracts';
import { dailyReportCsv, dailyReportFileName, dailyReportRecords } from '../../../domain/daily-report-csv';
import { identityOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { authenticateCashierOrApiKey } from '../middlewares/authenticate-cashier';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow, type ExistenceProbe } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/** Every row from the first page on, asking links for the next page only once the previous one is written. */
async function* reportRows(first: DailyReportPage, next: (cursor: string) => Promise<DailyReportPage>): AsyncGenerator<DailyReportRow> {
  let page = first;
  for (;;) {
    yield* page.rows;
    if (!page.has_more || page.next_cursor === null) return;
    page = await next(page.next_cursor);
  }
}

/**
 * The daily report download (ADR 40), as the statement's: the first page is asked before anything is sent, so a
 * refusal (a bad date, another merchant's shop, links down) is still an error response; the rest streams page by
 * page over the bus (each page one NATS message, ADR 7), never held whole. A page that fails later cuts the
 * connection, so a partial file never looks whole (its totals row is the last line: a cut file has none).
 */
async function sendDailyReport(deps: HttpDeps, res: Response, query: { shop_id: number; date: string }): Promise<void> {
  const identity = identityOf(res);
  const requestId = requestIdOf(res);
  const command: DailyReportCommand = { shop_id: query.shop_id, date: query.date, limit: DAILY_REPORT_PAGE_MAX, cursor: null };
  const first = await deps.links.dailyReport(identity, command, requestId);
  res.status(200).set({
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${dailyReportFileName(query.shop_id, query.date, identity.mode)}"`,
  });
  const rows = reportRows(first, (cursor) => deps.links.dailyReport(identity, { ...command, cursor }, requestId));
  try {
    await pipeline(Readable.from(dailyReportRecords(rows)), dailyReportCsv(), res);
  } catch (err) {
    res.destroy();
    deps.log.warn({ err, request_id: requestId }, 'daily report download cut short');
  }
}

const dailyReport = (deps: HttpDeps): RequestHandler =>
  route({ query: dailyReportQuery, handle: ({ res, query }) => sendDailyReport(deps, res, query) });

/** `/merchant/v1/reports/daily`: the account's API key pair, or a cashier key for its own shop. */
export function merchantReportsRoutes(deps: HttpDeps): Router {
  const router = Router();
  const caller = [authenticateCashierOrApiKey(deps, authenticateApiKey(deps.apiKeys, deps.rateLimits)), limitByCredential(deps.rateLimits)];
  router
    .route('/reports/daily')
    .get(chain(...caller, dailyReport(deps)))
    .all(wrongMethod(['GET']));
  return router;
}

/**
 * `/api/v1/reports/daily`, a dashboard session with a role that reads money. A member without it learns first
 * whether the shop exists and is the account's (404, 403), as on the balance, then is refused by role.
 */
export function sessionReportsRoutes(deps: HttpDeps): Router {
  const router = Router();
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  const shopExists: ExistenceProbe = async (req, res) => {
    const query = dailyReportQuery.safeParse(req.query);
    if (query.success) await deps.shops.read(identityOf(res), query.data.shop_id, requestIdOf(res));
  };
  router
    .route('/reports/daily')
    .get(chain(...session, allow('read_money', shopExists), dailyReport(deps)))
    .all(wrongMethod(['GET']));
  return router;
}
