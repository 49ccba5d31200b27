import { getSummary } from '../api/reports';
import { useI18n } from '../i18n';
import { ErrorMessage, Loading, Money } from '../kit/common';
import { Table } from '../kit/data-table';
import { DayChart } from '../kit/day-chart';
import { Facts } from '../kit/fields';
import { useLoad } from '../kit/use-load';
import { formatDay, formatRub, formatShare } from '../format';
import type { Summary, SummaryDay } from '../types';

const compact = { ru: new Intl.NumberFormat('ru-RU', { notation: 'compact' }), en: new Intl.NumberFormat('en-GB', { notation: 'compact' }) };

/** The day with the highest figure (the latest of equals), for the chart's words. */
function bestDay(days: readonly SummaryDay[], figure: (d: SummaryDay) => number): SummaryDay | undefined {
  return days.reduce<SummaryDay | undefined>((best, d) => (best === undefined || figure(d) >= figure(best) ? d : best), undefined);
}

/** The last days of one shop (`shopId`) or of every shop (''), as three charts, their totals and a table. */
export function SummaryCharts({ shopId }: { shopId: string }) {
  const loaded = useLoad(() => getSummary(shopId), `summary:${shopId}`);
  return (
    <>
      {loaded.loading && <Loading />}
      <ErrorMessage error={loaded.error} onRetry={loaded.reload} />
      {loaded.data && <SummaryView summary={loaded.data} />}
    </>
  );
}

function SummaryView({ summary }: { summary: Summary }) {
  const { t, lang } = useI18n();
  const { days, totals } = summary;
  const labels = days.map((d) => formatDay(d.date, lang));
  const money = (text: string) => formatRub(text, lang);
  const share = (d: { share_paid: number | null }) => (d.share_paid === null ? t.none : formatShare(d.share_paid, lang));
  const topVolume = bestDay(days, (d) => Number(d.gross_volume));
  const topPaid = bestDay(days, (d) => d.paid_count);
  return (
    <>
      <section class="card" aria-labelledby="home-totals-title" data-testid="home-totals">
        <h2 id="home-totals-title">{t.homePeriod(days.length)}</h2>
        <Facts
          facts={[
            { label: t.homeGrossVolume, value: <Money value={totals.gross_volume} />, testId: 'home-total-volume' },
            { label: t.homePaidLinks, value: String(totals.paid_count), testId: 'home-total-paid' },
            { label: t.homeLinksCreated, value: String(totals.created_count) },
            { label: t.homeSharePaid, value: share(totals), testId: 'home-total-share' },
            { label: t.homeRefunds, value: <Money value={totals.refunds} /> },
          ]}
        />
      </section>
      <div class="chart-grid">
        <section class="card" aria-labelledby="home-volume-title">
          <h2 id="home-volume-title">{t.homeGrossVolume}</h2>
          <DayChart
            kind="bar"
            testId="chart-volume"
            summary={t.homeVolumeSummary(
              money(totals.gross_volume),
              topVolume ? formatDay(topVolume.date, lang) : t.none,
              money(topVolume?.gross_volume ?? '0.00'),
            )}
            labels={labels}
            values={days.map((d) => Number(d.gross_volume))}
            tick={(v) => compact[lang].format(v)}
            tooltip={(i) => money(days[i]?.gross_volume ?? '0.00')}
          />
          <p class="hint">{t.homeVolumeHint}</p>
        </section>
        <section class="card" aria-labelledby="home-paid-title">
          <h2 id="home-paid-title">{t.homePaidLinks}</h2>
          <DayChart
            kind="bar"
            testId="chart-paid"
            summary={t.homePaidSummary(totals.paid_count, topPaid ? formatDay(topPaid.date, lang) : t.none, topPaid?.paid_count ?? 0)}
            labels={labels}
            values={days.map((d) => d.paid_count)}
            tick={(v) => compact[lang].format(v)}
            tooltip={(i) => String(days[i]?.paid_count ?? 0)}
          />
        </section>
        <section class="card" aria-labelledby="home-share-title">
          <h2 id="home-share-title">{t.homeSharePaid}</h2>
          <DayChart
            kind="line"
            testId="chart-share"
            summary={totals.share_paid === null ? t.homeShareSummaryNone : t.homeShareSummary(formatShare(totals.share_paid, lang))}
            labels={labels}
            values={days.map((d) => (d.share_paid === null ? null : d.share_paid * 100))}
            max={100}
            tick={(v) => formatShare(v / 100, lang)}
            tooltip={(i) => (days[i] ? share(days[i]) : t.none)}
          />
          <p class="hint">{t.homeShareHint}</p>
        </section>
      </div>
      <details class="card home-table">
        <summary>{t.homeAsTable}</summary>
        <Table
          label={t.homeAsTable}
          testId="home-days"
          rows={[...days].reverse()}
          rowKey={(d) => d.date}
          columns={[
            { header: t.homeDay, cell: (d) => formatDay(d.date, lang) },
            { header: t.homeGrossVolume, num: true, cell: (d) => <Money value={d.gross_volume} /> },
            { header: t.homePaidLinks, num: true, cell: (d) => String(d.paid_count) },
            { header: t.homeLinksCreated, num: true, cell: (d) => String(d.created_count) },
            { header: t.homeSharePaid, num: true, cell: share },
            { header: t.homeRefunds, num: true, cell: (d) => <Money value={d.refunds} /> },
          ]}
        />
      </details>
    </>
  );
}
