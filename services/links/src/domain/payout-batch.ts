import type { BankAccountDetails } from '@pl/contracts';

/**
 * A batch of bank payouts (docs/adr/0045-payout-batches-and-statement-import.md): the approved live payouts of the
 * `bank` rail that one `payout:batch:create` gathered and moved to `processing`, exported as one payment file.
 */
export interface PayoutBatch {
  id: string;
  payoutCount: number;
  /** The orders' sum, kopecks: the payouts' amounts (their fees stay with the platform). */
  total: number;
  createdAt: Date;
  /** The first export: every order of the batch is dated this Moscow day, on every export. */
  exportedAt: Date | null;
  lastExportedAt: Date | null;
  exportCount: number;
  /** When an operator said the file was uploaded to the bank (`payout:batch:sent`). */
  sentAt: Date | null;
}

/** A batch with how far its payouts have got, for the operators' list. */
export interface PayoutBatchProgress extends PayoutBatch {
  processing: number;
  paid: number;
  failed: number;
}

/** One payment order of a batch: a payout, its order number and where the money goes (the payout's snapshot). */
export interface PayoutBatchOrder {
  payoutId: string;
  orderNumber: number;
  /** Kopecks: the payout's amount. */
  amount: number;
  payee: BankAccountDetails;
}

export interface PayoutBatchStore {
  /**
   * One transaction: every approved live payout of the `bank` rail not yet in a batch goes into a new batch, each with
   * an order number, and moves to `processing`. Null when there is none.
   */
  create(id: string): Promise<PayoutBatch | null>;
  find(id: string): Promise<PayoutBatch | null>;
  /** The batch's orders by order number. */
  orders(batchId: string): Promise<PayoutBatchOrder[]>;
  /** Counts an export made at `at`, stamping the first; the batch as it is after, null for an unknown id. */
  recordExport(batchId: string, at: Date): Promise<PayoutBatch | null>;
  /** Stamps the upload once (a repeat keeps the first time); null for an unknown id, `not_exported` before any export. */
  recordSent(batchId: string): Promise<PayoutBatch | 'not_exported' | null>;
  /** The newest batches with their payouts' progress. */
  list(limit: number): Promise<PayoutBatchProgress[]>;
}
