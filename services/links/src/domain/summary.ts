import type { Identity, Mode, Summary, SummaryCommand } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import { formatKopecks } from '@pl/money';
import { requireMerchant } from './access';
import type { ShopDirectory } from './ports';

/** One Moscow day's figures as the store adds them up, money in kopecks. */
export interface SummaryDayRecord {
  /** `YYYY-MM-DD`, Moscow. */
  date: string;
  grossVolume: number;
  paidCount: number;
  createdCount: number;
  createdPaidCount: number;
  refunds: number;
}

export interface SummaryQuery {
  merchantId: string;
  mode: Mode;
  /** One shop of the merchant, or all of them. */
  shopId: number | null;
  /** Today and the days before it, Moscow. */
  days: number;
  now: Date;
}

export interface SummaryStore {
  /** One record per Moscow day of the window, oldest first, zeros included. */
  summary(query: SummaryQuery): Promise<SummaryDayRecord[]>;
}

export interface SummaryDeps {
  summaries: SummaryStore;
  shops: ShopDirectory;
  now: () => Date;
}

/** Four decimals: enough for a percentage with two, and the same figure in every client. */
const share = (paid: number, created: number): number | null => (created === 0 ? null : Math.round((paid / created) * 10_000) / 10_000);

const figures = (r: Omit<SummaryDayRecord, 'date'>) => ({
  gross_volume: formatKopecks(r.grossVolume),
  paid_count: r.paidCount,
  created_count: r.createdCount,
  created_paid_count: r.createdPaidCount,
  share_paid: share(r.createdPaidCount, r.createdCount),
  refunds: formatKopecks(r.refunds),
});

const add = (a: Omit<SummaryDayRecord, 'date'>, b: SummaryDayRecord): Omit<SummaryDayRecord, 'date'> => ({
  grossVolume: a.grossVolume + b.grossVolume,
  paidCount: a.paidCount + b.paidCount,
  createdCount: a.createdCount + b.createdCount,
  createdPaidCount: a.createdPaidCount + b.createdPaidCount,
  refunds: a.refunds + b.refunds,
});

/**
 * The caller's shop's (or every shop's) last `days` Moscow days, in the caller's mode. A named shop is checked as
 * the balance checks it (unknown 404, another merchant's 403); a cashier key sees its own shop only.
 */
export async function getSummary(deps: SummaryDeps, identity: Identity, command: SummaryCommand): Promise<Summary> {
  const who = requireMerchant(identity);
  if (who.shop_id !== undefined && command.shop_id !== null && command.shop_id !== who.shop_id) {
    throw forbidden("shop_id does not match the cashier key's shop");
  }
  if (command.shop_id !== null && who.shop_id === undefined) await deps.shops.getShop(command.shop_id, who);
  const shopId = command.shop_id ?? who.shop_id ?? null;
  const rows = await deps.summaries.summary({ merchantId: who.merchant_id, mode: who.mode, shopId, days: command.days, now: deps.now() });
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last) throw new Error('The summary store answered no day');
  const zero = { grossVolume: 0, paidCount: 0, createdCount: 0, createdPaidCount: 0, refunds: 0 };
  return {
    shop_id: shopId,
    currency: 'RUB',
    livemode: who.mode === 'live',
    from: first.date,
    to: last.date,
    days: rows.map((r) => ({ date: r.date, ...figures(r) })),
    totals: figures(rows.reduce(add, zero)),
  };
}
