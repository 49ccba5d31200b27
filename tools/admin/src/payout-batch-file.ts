import { validationFailed } from '@pl/errors';
import type { PayoutBatchOrder } from '@pl/links';
import { ExchangeFileError, exportPaymentOrders, type PayerAccount } from '@pl/payout-rails';

/**
 * A payout's payment purpose: its id, which the bank's statement repeats on the executed order (and usually on a
 * return), and the VAT clause a payment order must carry: a payout is the merchant's own money, not a sale.
 */
const payoutPurpose = (payoutId: string): string => `Выплата по договору оферты, payout ${payoutId}. НДС не облагается`;

/** `orders.3.payee.inn` -> the payout of the fourth order and the rest of the path. */
function payoutOf(field: string | undefined, orders: readonly PayoutBatchOrder[]): { payoutId: string; rest: string } | null {
  const m = /^orders\.(\d+)(?:\.(.+))?$/.exec(field ?? '');
  const order = m ? orders[Number(m[1])] : undefined;
  return order ? { payoutId: order.payoutId, rest: m?.[2] ?? '' } : null;
}

/**
 * The batch's payment file (docs/adr/0045-payout-batches-and-statement-import.md): one order per payout for its
 * amount, numbered as the batch numbered it, dated `orderDate`, payable to the payout's destination snapshot. A value
 * the file cannot carry refuses the whole file, naming the payout: an operator must not upload a batch that silently
 * lacks one.
 */
export function buildBatchFile(payer: PayerAccount, orders: readonly PayoutBatchOrder[], orderDate: Date, createdAt: Date): Buffer {
  try {
    return exportPaymentOrders({
      payer,
      createdAt,
      orders: orders.map((o) => ({
        number: o.orderNumber,
        date: orderDate,
        amountKopecks: o.amount,
        payee: { name: o.payee.recipient_name, inn: o.payee.inn, kpp: o.payee.kpp ?? null, bik: o.payee.bik, account: o.payee.account },
        purpose: payoutPurpose(o.payoutId),
      })),
    });
  } catch (e) {
    if (!(e instanceof ExchangeFileError)) throw e;
    const payout = payoutOf(e.field, orders);
    const field = payout ? `payout ${payout.payoutId}${payout.rest ? ` (${payout.rest})` : ''}` : (e.field ?? 'file');
    throw validationFailed(`The payment file cannot be written: ${field}: ${e.message}`, [{ field, code: e.code, message: e.message }]);
  }
}
