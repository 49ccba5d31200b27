import { z } from 'zod';
import { CURSOR_MAX_LENGTH, moneyText, moscowDate, PAGE_LIMIT_MAX, pageQueryFields, positiveId, uuid } from './fields';
import { identifierText } from './text';

/** docs/money.md, "The ledger": the shop's balance per mode, from its ledger accounts. */
export const balance = z.object({
  shop_id: positiveId,
  currency: z.literal('RUB'),
  livemode: z.boolean(),
  available: moneyText,
  refund_reserve: moneyText,
  /** When the balance last moved; null before its first movement. */
  updated_at: moscowDate.nullable(),
});
export type Balance = z.infer<typeof balance>;

export const balanceTransactionType = z.enum(['payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed']);
export type BalanceTransactionType = z.infer<typeof balanceTransactionType>;

/**
 * One movement of the shop's `available` balance. `amount` and `net` are signed; `fee` is the platform's fee,
 * never negative. Payment: amount = payer_amount, fee = platform_revenue, net = merchant_credit. Refund:
 * amount = net = −refund, fee 0.00; a failed refund's return: amount = net = +refund.
 */
export const balanceTransaction = z.object({
  id: uuid,
  shop_id: positiveId,
  type: balanceTransactionType,
  amount: moneyText,
  fee: moneyText,
  net: moneyText,
  /** `available` right after this transaction. */
  balance_after: moneyText,
  payment_link_id: uuid.nullable(),
  refund_id: uuid.nullable(),
  created_at: moscowDate,
});
export type BalanceTransaction = z.infer<typeof balanceTransaction>;

export const balanceTransactionPage = z.object({
  balance_transactions: z.array(balanceTransaction),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
export type BalanceTransactionPage = z.infer<typeof balanceTransactionPage>;

export const shopIdText = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(positiveId);

/** `GET /merchant/v1/balance?shop_id=`. */
export const balanceQuery = z.strictObject({ shop_id: shopIdText });

/** `GET …/balance-transactions`; `format=csv` only on the session route (the statement download). */
export const listBalanceTransactionsQuery = z.strictObject({
  shop_id: shopIdText.optional(),
  type: balanceTransactionType.optional(),
  ...pageQueryFields,
});
export const listBalanceTransactionsSessionQuery = listBalanceTransactionsQuery.extend({
  format: z.enum(['json', 'csv']).optional(),
});

// NATS commands of the links service (merchant and mode from the identity token).
export const balanceCommand = z.strictObject({ shop_id: positiveId });
export const listBalanceTransactionsCommand = z.strictObject({
  shop_id: positiveId.nullable(),
  type: balanceTransactionType.nullable(),
  limit: z.number().int().min(1).max(PAGE_LIMIT_MAX),
  cursor: identifierText(CURSOR_MAX_LENGTH).nullable(),
});
export type ListBalanceTransactionsCommand = z.infer<typeof listBalanceTransactionsCommand>;

/** `npm run admin -- ledger:verify`: both counts must be 0. */
export const ledgerVerification = z.object({
  transactions: z.number().int().min(0),
  unbalanced: z.number().int().min(0),
  balances_mismatched: z.number().int().min(0),
});
export type LedgerVerification = z.infer<typeof ledgerVerification>;
