import { stringify, type Stringifier } from 'csv-stringify';
import type { DailyReportRow } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import { spreadsheetSafe } from './csv-cell';

/** The report's columns, in order (docs/money.md, "Daily report"). */
const DAILY_REPORT_COLUMNS = ['id', 'time', 'type', 'amount', 'fee', 'net', 'order_id', 'destination', 'status'] as const;
type Column = (typeof DAILY_REPORT_COLUMNS)[number];
type CsvRecord = Record<Column, string | null>;

/** Kopecks of a money text as the contracts write it (`-500.00`: always two decimals), exactly. */
const kopecksOf = (money: string): bigint => BigInt(money.replace('.', ''));

const recordOf = (row: DailyReportRow): CsvRecord => ({
  id: row.id,
  time: row.at,
  type: row.type,
  amount: row.amount,
  fee: row.fee,
  net: row.net,
  order_id: row.order_id,
  destination: row.destination,
  status: row.status,
});

/** Every cell made safe to open in a spreadsheet: the merchant's order ids are free text. */
const safe = (record: CsvRecord): CsvRecord =>
  Object.fromEntries(Object.entries(record).map(([column, cell]) => [column, spreadsheetSafe(cell)])) as CsvRecord;

/**
 * The report's records: each row, then the totals row (`type` `total`) of the rows that moved the shop's balance
 * (those with a `net`): its amount, fee and net are the ledger's for the day. Sums are in kopecks, exactly.
 */
export async function* dailyReportRecords(rows: AsyncIterable<DailyReportRow>): AsyncGenerator<CsvRecord> {
  let amount = 0n;
  let fee = 0n;
  let net = 0n;
  for await (const row of rows) {
    if (row.net !== null) {
      amount += kopecksOf(row.amount);
      fee += kopecksOf(row.fee ?? '0.00');
      net += kopecksOf(row.net);
    }
    yield safe(recordOf(row));
  }
  yield {
    id: null,
    time: null,
    type: 'total',
    amount: formatKopecks(amount),
    fee: formatKopecks(fee),
    net: formatKopecks(net),
    order_id: null,
    destination: null,
    status: null,
  };
}

/**
 * Records to the file's bytes as the statement writes them (statement-csv.ts): RFC 4180 with CRLF, fields quoted
 * when they hold a comma, quote or line break, a header row, null as an empty field, and a UTF-8 byte-order mark
 * so spreadsheets read Cyrillic order ids right.
 */
export const dailyReportCsv = (): Stringifier =>
  stringify({ header: true, columns: [...DAILY_REPORT_COLUMNS], bom: true, record_delimiter: 'windows' });

/** The download's name: the shop, the day and the mode, so a live and a test report never overwrite each other. */
export const dailyReportFileName = (shopId: number, date: string, mode: string): string => `daily-report-${shopId}-${date}-${mode}.csv`;
