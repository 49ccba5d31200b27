import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router, type RequestHandler, type Response } from 'express';
import { balanceQuery, type BalanceTransaction, type BalanceTransactionPage, type ListBalanceTransactionsCommand } from '@pl/contracts';
import { listBalanceTransactionsInput, listBalanceTransactionsSessionInput, statementFileName } from '../../../domain/balance-commands';
import { toShopId } from '../../../domain/shop-commands';
import { statementCsv } from '../../../domain/statement-csv';
import { identityOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/** Every transaction from `first` on, asking links for the next page only once the previous one is written. */
async function* statementRows(
  first: BalanceTransactionPage,
  next: (cursor: string) => Promise<BalanceTransactionPage>,
): AsyncGenerator<BalanceTransaction> {
  let page = first;
  for (;;) {
    yield* page.balance_transactions;
    if (!page.has_more || page.next_cursor === null) return;
    page = await next(page.next_cursor);
  }
}

/**
 * The statement download. The first page is asked for before anything is sent, so a refusal (a shop of another
 * merchant, links down) is still an error response; the rest streams page by page, never held whole in memory.
 * A page that fails later cannot change the status any more: the connection is cut, so the download ends as
 * incomplete instead of looking like a whole statement.
 */
async function sendStatementCsv(deps: HttpDeps, res: Response, command: ListBalanceTransactionsCommand): Promise<void> {
  const identity = identityOf(res);
  const requestId = requestIdOf(res);
  const first = await deps.links.balanceTransactions(identity, command, requestId);
  res.status(200).set({
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${statementFileName(command.shop_id, identity.mode)}"`,
  });
  const rows = statementRows(first, (cursor) => deps.links.balanceTransactions(identity, { ...command, cursor }, requestId));
  try {
    await pipeline(Readable.from(rows), statementCsv(), res);
  } catch (err) {
    res.destroy();
    deps.log.warn({ err, request_id: requestId }, 'statement download cut short');
  }
}

const listTransactions = (deps: HttpDeps): RequestHandler =>
  route({
    query: listBalanceTransactionsInput,
    handle: async ({ res, query }) => {
      res.json(await deps.links.balanceTransactions(identityOf(res), query, requestIdOf(res)));
    },
  });

/** `/merchant/v1/balance` and `/merchant/v1/balance-transactions`, account API keys. */
export function merchantBalanceRoutes(deps: HttpDeps): Router {
  const router = Router();
  const caller = [authenticateApiKey(deps.apiKeys, deps.rateLimits), limitByCredential(deps.rateLimits)];
  router
    .route('/balance')
    .get(
      chain(
        ...caller,
        route({
          query: balanceQuery,
          handle: async ({ res, query }) => {
            res.json(await deps.links.balance(identityOf(res), query.shop_id, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/balance-transactions')
    .get(chain(...caller, listTransactions(deps)))
    .all(wrongMethod(['GET']));
  return router;
}

/** `/api/v1/shops/{id}/balance` and `/api/v1/balance-transactions` (with the CSV statement), dashboard session. */
export function sessionBalanceRoutes(deps: HttpDeps): Router {
  const router = Router();
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  router
    .route('/shops/:id/balance')
    .get(
      chain(
        ...session,
        allow('read_money', (req, res) => deps.shops.read(identityOf(res), toShopId(req.params.id), requestIdOf(res))),
        async (req, res) => {
          res.json(await deps.links.balance(identityOf(res), toShopId(req.params.id), requestIdOf(res)));
        },
      ),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/balance-transactions')
    .get(
      chain(
        ...session,
        allow('read_money'),
        route({
          query: listBalanceTransactionsSessionInput,
          handle: async ({ res, query }) => {
            if (query.format === 'csv') await sendStatementCsv(deps, res, query.command);
            else res.json(await deps.links.balanceTransactions(identityOf(res), query.command, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET']));
  return router;
}
