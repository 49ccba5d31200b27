import { useState } from 'preact/hooks';
import { downloadDailyReport } from '../api/reports';
import { useI18n } from '../i18n';
import { ErrorMessage } from '../kit/common';
import { saveFile } from '../kit/save-file';
import { useAction } from '../kit/use-load';
import type { MerchantShop } from '../types';

/** Today in Moscow time (`YYYY-MM-DD`): the report's days are Moscow's, and a later day is refused by the server. */
const moscowToday = (): string => new Date(Date.now() + 3 * 60 * 60 * 1000).toISOString().slice(0, 10);

/** The daily report of one shop and day as a CSV file (docs/adr/0040-daily-report.md), in the dashboard's mode. */
export function DailyReport({ shops }: { shops: readonly MerchantShop[] }) {
  const { t } = useI18n();
  const today = moscowToday();
  const [shopId, setShopId] = useState(String(shops[0]?.id ?? ''));
  const [date, setDate] = useState(today);
  const download = useAction(async () => {
    const { blob, filename } = await downloadDailyReport(shopId, date);
    saveFile(blob, filename);
  });
  return (
    <form
      class="card"
      aria-labelledby="daily-report-title"
      data-testid="daily-report"
      onSubmit={(e) => {
        e.preventDefault();
        download.run();
      }}
    >
      <h2 id="daily-report-title">{t.dailyReportTitle}</h2>
      <p class="hint" id="daily-report-hint">
        {t.dailyReportHint}
      </p>
      <div class="field">
        <label for="report-shop">{t.shop}</label>
        <select id="report-shop" value={shopId} onChange={(e) => setShopId(e.currentTarget.value)}>
          {shops.map((s) => (
            <option key={s.id} value={String(s.id)}>
              {s.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="report-date">{t.dailyReportDate}</label>
        <input id="report-date" type="date" required max={today} value={date} onInput={(e) => setDate(e.currentTarget.value)} />
      </div>
      <ErrorMessage error={download.error} />
      <button type="submit" disabled={download.busy || shopId === ''} aria-busy={download.busy} aria-describedby="daily-report-hint">
        {download.busy ? t.dailyReportPreparing : t.dailyReportDownload}
      </button>
    </form>
  );
}
