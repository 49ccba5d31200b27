import type { Balance, BalanceTransactionPage, Identity, ListBalanceTransactionsCommand } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import { requireMerchant } from './access';
import { decodeCursor } from './cursor';
import { toBalance, toBalanceTransactionPage, type LedgerStore } from './ledger';
import type { ShopDirectory } from './ports';

export interface BalanceDeps {
  ledger: LedgerStore;
  shops: ShopDirectory;
}

/**
 * The caller's shop's balance in the caller's mode. The shop is checked as a link's create checks it: unknown 404,
 * another merchant's (or another shop than a cashier key's) 403. A shop that never moved money has zero balances.
 */
export async function getBalance(deps: BalanceDeps, identity: Identity, shopId: number): Promise<Balance> {
  const who = requireMerchant(identity);
  await deps.shops.getShop(shopId, who);
  return toBalance(await deps.ledger.balance(shopId, who.mode));
}

/** The statement of the caller's shops (a cashier key: its own), newest first, in the caller's mode. */
export async function listBalanceTransactions(
  deps: BalanceDeps,
  identity: Identity,
  command: ListBalanceTransactionsCommand,
): Promise<BalanceTransactionPage> {
  const who = requireMerchant(identity);
  const after = command.cursor === null ? null : decodeCursor(command.cursor);
  if (who.shop_id !== undefined && command.shop_id !== null && command.shop_id !== who.shop_id) {
    throw forbidden("shop_id does not match the cashier key's shop");
  }
  // A named shop follows the balance's rule (404/403), not an empty page that would tell nothing apart.
  if (command.shop_id !== null && who.shop_id === undefined) await deps.shops.getShop(command.shop_id, who);
  const rows = await deps.ledger.statement({
    merchantId: who.merchant_id,
    mode: who.mode,
    shopId: command.shop_id ?? who.shop_id ?? null,
    type: command.type,
    after,
    limit: command.limit + 1,
  });
  return toBalanceTransactionPage(rows, command.limit);
}
