/**
 * The rails of bank payouts (the payouts spec, `payouts.md`; ADR 0037): Russian bank details checked as the merchant
 * enters them, payment orders written as a 1C exchange file for the platform's bank, and the bank's statement in the
 * same format read back into the operations that pay or return a payout. Pure: no I/O, no clock.
 */
export {
  accountMatchesBik,
  bankAccountProblems,
  bikValid,
  innValid,
  kppValid,
  maskBankAccount,
  RECIPIENT_NAME_MAX,
  type BankAccountDetails,
  type BankAccountProblem,
} from './bank-details';
export { ExchangeFileError, type ExchangeFileErrorCode } from './exchange-file-error';
export {
  exportPaymentOrders,
  PAYMENT_ORDER_KIND,
  type PayerAccount,
  type PaymentOrder,
  type PaymentOrderPayee,
  type PaymentOrdersFile,
} from './one-c-export';
export { parseExchangeFile, type ExchangeAccountSection, type ExchangeDocument, type ParsedExchangeFile } from './one-c-parse';
export { payoutIdsIn, statementLines, type StatementCounterparty, type StatementLine } from './statement-lines';
