import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { getBalance, listBalanceTransactions, type BalanceDeps } from '../../domain/balance';
import { inLinkMode } from './link-span';

/** The shop's balance and statement subjects (docs/money.md, "The ledger"), in the caller's mode. */
export function registerLedgerHandlers(server: BusServer, deps: BalanceDeps): void {
  server.handle(subjects.balanceGet, ({ shop_id }, ctx) => inLinkMode(ctx, () => getBalance(deps, ctx.identity, shop_id)));
  server.handle(subjects.balanceTransactionsList, (command, ctx) => inLinkMode(ctx, () => listBalanceTransactions(deps, ctx.identity, command)));
}
