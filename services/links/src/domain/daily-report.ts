import type { DailyReportCommand, DailyReportPage, DailyReportRow, DailyReportRowType, Identity, Mode } from '@pl/contracts';
import { cursorBigint, cursorCodec, cursorUuid, formatMoscow } from '@pl/contracts';
import { forbidden, invalidField } from '@pl/errors';
import { formatKopecks } from '@pl/money';
import { requireMerchant } from './access';
import { moscowDateOf, moscowDay } from './moscow-day';
import type { ShopDirectory } from './ports';

/** One row of the report as the repository reads it: kopecks, instants, and its place in the report's order. */
export interface DailyReportRecord {
  /** The row's own key (its ledger transaction's or unresolved payment's id): with `atMicros`, its place in the order. */
  key: string;
  atMicros: bigint;
  at: Date;
  id: string;
  type: DailyReportRowType;
  amount: number;
  /** Null on a row that did not move the shop's balance. */
  fee: number | null;
  net: number | null;
  orderId: string | null;
  destination: string | null;
  status: string;
}

/** A position in the report's (at, key) order, and the instant the report was first asked: its rows end there. */
interface DailyReportPosition {
  asOfMicros: bigint;
  atMicros: bigint;
  key: string;
}

export interface DailyReportQuery {
  merchantId: string;
  shopId: number;
  mode: Mode;
  /** [from, to) of the day, `to` cut at the report's as-of instant for today. */
  from: Date;
  to: Date;
  after: DailyReportPosition | null;
  limit: number;
}

export interface DailyReportStore {
  /** The rows of the query's window after its position, oldest first, at most `limit`. */
  dailyReport(query: DailyReportQuery): Promise<DailyReportRecord[]>;
}

export interface DailyReportDeps {
  reports: DailyReportStore;
  shops: ShopDirectory;
  now: () => Date;
}

/** Opaque to clients: base64url of `v1:<as-of micros>:<at micros>:<key>`. */
const reportCursor = cursorCodec<DailyReportPosition>({ asOfMicros: cursorBigint(18), atMicros: cursorBigint(18), key: cursorUuid });

const micros = (instant: Date): bigint => BigInt(instant.getTime()) * 1000n;
const fromMicros = (value: bigint): Date => new Date(Number(value / 1000n));

const toRow = (r: DailyReportRecord): DailyReportRow => ({
  id: r.id,
  type: r.type,
  at: formatMoscow(r.at),
  amount: formatKopecks(r.amount),
  fee: r.fee === null ? null : formatKopecks(r.fee),
  net: r.net === null ? null : formatKopecks(r.net),
  order_id: r.orderId,
  destination: r.destination,
  status: r.status,
});

/**
 * One page of the shop's daily report in the caller's mode, oldest first. The checks go as the balance's do: the
 * date (a day after today in Moscow is 400 naming `date`), then the shop (unknown 404, another merchant's or, for a
 * cashier key, another shop than its own 403). The first page fixes the report's as-of instant and every later page
 * carries it in its cursor, so a report of today read page by page ends where it began: a movement after the first
 * page waits for the next download rather than landing in the middle of this one.
 */
export async function getDailyReportPage(deps: DailyReportDeps, identity: Identity, command: DailyReportCommand): Promise<DailyReportPage> {
  const who = requireMerchant(identity);
  const now = deps.now();
  if (command.date > moscowDateOf(now)) throw invalidField('date', 'is after today in Moscow time');
  const after = command.cursor === null ? null : reportCursor.decode(command.cursor);
  if (who.shop_id !== undefined && command.shop_id !== who.shop_id) throw forbidden("shop_id does not match the cashier key's shop");
  await deps.shops.getShop(command.shop_id, who);
  const asOfMicros = after?.asOfMicros ?? micros(now);
  const day = moscowDay(command.date);
  const asOf = fromMicros(asOfMicros);
  const records = await deps.reports.dailyReport({
    merchantId: who.merchant_id,
    shopId: command.shop_id,
    mode: who.mode,
    from: day.from,
    to: asOf < day.to ? asOf : day.to,
    after,
    limit: command.limit + 1,
  });
  const rows = records.slice(0, command.limit);
  const last = rows.at(-1);
  const hasMore = records.length > command.limit && last !== undefined;
  return {
    rows: rows.map(toRow),
    has_more: hasMore,
    next_cursor: hasMore ? reportCursor.encode({ asOfMicros, atMicros: last.atMicros, key: last.key }) : null,
  };
}
