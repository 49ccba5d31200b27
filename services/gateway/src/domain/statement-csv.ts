import { stringify, type Stringifier } from 'csv-stringify';
import type { BalanceTransaction } from '@pl/contracts';

/** The statement's columns: every field of a balance transaction, in the contract's order. */
export const STATEMENT_COLUMNS = [
  'id',
  'shop_id',
  'type',
  'amount',
  'fee',
  'net',
  'balance_after',
  'payment_link_id',
  'refund_id',
  'created_at',
] as const satisfies readonly (keyof BalanceTransaction)[];

/**
 * A stream from balance transactions to the statement's bytes: RFC 4180 (CRLF, fields quoted when they hold a
 * comma, quote or line break, quotes doubled), UTF-8 with a byte-order mark so spreadsheets read it as UTF-8,
 * a header row, and null as an empty field.
 */
export const statementCsv = (): Stringifier => stringify({ header: true, columns: [...STATEMENT_COLUMNS], bom: true, record_delimiter: 'windows' });
