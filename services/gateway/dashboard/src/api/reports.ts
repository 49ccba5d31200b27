import { call, client, present } from './client';
import { fileNameOf } from './money';
import type { Summary } from '../types';

/** The Home page's last days at a glance (docs/reports.md): one shop's, or every shop's when `shopId` is ''. */
export const getSummary = (shopId: string, days = 30): Promise<Summary> =>
  call(client.GET('/api/v1/reports/summary', { params: { query: present({ shop_id: shopId, days: String(days) }) } }));

/**
 * A shop's daily report as CSV (docs/adr/0040-daily-report.md): fetched by the app rather than followed as a plain
 * link, so it carries the mode header and a test report is never the live one.
 */
export async function downloadDailyReport(shopId: string, date: string): Promise<{ blob: Blob; filename: string }> {
  let filename = `daily-report-${shopId}-${date}.csv`;
  const blob = await call(
    client
      .GET('/api/v1/reports/daily', { params: { query: { shop_id: shopId, date } }, headers: { Accept: 'text/csv' }, parseAs: 'blob' })
      .then((answer) => {
        filename = fileNameOf(answer.response) ?? filename;
        return answer;
      }),
  );
  return { blob, filename };
}
