/**
 * What the bank statement import works with (docs/adr/0045-payout-batches-and-statement-import.md): the operations of
 * the platform's account as @pl/payout-rails reads them from the statement, and the lines already applied.
 */

/** One operation of the platform's account: the fields of @pl/payout-rails' StatementLine that the import reads. */
export interface StatementOperation {
  /** `debit`: money left the platform's account (an executed order); `credit`: money came in (a return, or anything else). */
  direction: 'debit' | 'credit';
  amountKopecks: number;
  /** `YYYY-MM-DD`, the day the money moved. */
  date: string;
  /** The document's number. */
  number: string;
  /** For a return, the bank's reason is here. */
  purpose: string;
  counterparty: { account: string; bik: string };
  /** The payout ids the purpose names. */
  payoutIds: readonly string[];
}

/** A line that moved a payout, as recorded. */
export interface AppliedStatementLine {
  lineKey: string;
  payoutId: string;
  direction: 'debit' | 'credit';
  documentNumber: string;
  documentDate: string;
  amount: number;
  purpose: string;
  counterpartyAccount: string;
  fileSha256: string;
}

export interface PayoutStatementStore {
  /** The payout a line already applied moved, or null. */
  appliedLine(lineKey: string): Promise<{ payoutId: string } | null>;
  /** The key of the line already applied to this payout in this direction, or null. */
  lineOfPayout(payoutId: string, direction: 'debit' | 'credit'): Promise<string | null>;
  /**
   * Records an applied line; false when another line holds the payout's direction (a concurrent import of a different
   * line naming the same payout), true when this line is recorded now or was already.
   */
  record(line: AppliedStatementLine): Promise<boolean>;
}
