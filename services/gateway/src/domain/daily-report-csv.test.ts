import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { DailyReportRow } from '@pl/contracts';
import { dailyReportCsv, dailyReportFileName, dailyReportRecords } from './daily-report-csv';

async function* each<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

// Bytes, not text(): a decoder would drop the byte-order mark under test.
const csvOf = async (rows: DailyReportRow[]): Promise<string> =>
  (await buffer(Readable.from(dailyReportRecords(each(rows))).pipe(dailyReportCsv()))).toString('utf8');

const row = (over: Partial<DailyReportRow>): DailyReportRow => ({
  id: '3c9e5a71-0000-4000-8000-000000000001',
  type: 'payment',
  at: '2026-11-25T01:55:15+03:00',
  amount: '1500.00',
  fee: '15.00',
  net: '1485.00',
  order_id: 'order-1001',
  destination: null,
  status: 'paid',
  ...over,
});

describe('the daily report CSV', () => {
  it('writes a BOM, a header, CRLF rows and a totals row of the rows that moved the balance', async () => {
    const out = await csvOf([
      row({}),
      row({ type: 'refund', amount: '-500.00', fee: '0.00', net: '-500.00', status: 'succeeded' }),
      row({ type: 'unresolved_payment', amount: '99.99', fee: null, net: null, status: 'unresolved' }),
    ]);
    expect(out).toBe(
      '\ufeffid,time,type,amount,fee,net,order_id,destination,status\r\n' +
        '3c9e5a71-0000-4000-8000-000000000001,2026-11-25T01:55:15+03:00,payment,1500.00,15.00,1485.00,order-1001,,paid\r\n' +
        '3c9e5a71-0000-4000-8000-000000000001,2026-11-25T01:55:15+03:00,refund,-500.00,0.00,-500.00,order-1001,,succeeded\r\n' +
        '3c9e5a71-0000-4000-8000-000000000001,2026-11-25T01:55:15+03:00,unresolved_payment,99.99,,,order-1001,,unresolved\r\n' +
        ',,total,1000.00,15.00,985.00,,,\r\n',
    );
  });

  it('quotes an order id with a comma, quote or line break (RFC 4180) and marks a formula as text', async () => {
    const lines = (await csvOf([row({ order_id: 'a,"b"\r\nc' }), row({ order_id: '=HYPERLINK("x")' }), row({ order_id: '@cmd' })])).split('\r\n');
    expect(lines.slice(1, 5)).toEqual([
      '3c9e5a71-0000-4000-8000-000000000001,2026-11-25T01:55:15+03:00,payment,1500.00,15.00,1485.00,"a,""b""',
      'c",,paid',
      `3c9e5a71-0000-4000-8000-000000000001,2026-11-25T01:55:15+03:00,payment,1500.00,15.00,1485.00,"'=HYPERLINK(""x"")",,paid`,
      "3c9e5a71-0000-4000-8000-000000000001,2026-11-25T01:55:15+03:00,payment,1500.00,15.00,1485.00,'@cmd,,paid",
    ]);
  });

  it('sums in whole kopecks, with no float drift over many rows', async () => {
    const rows = Array.from({ length: 1000 }, () => row({ amount: '0.10', fee: '0.01', net: '0.09' }));
    expect((await csvOf(rows)).split('\r\n').at(-2)).toBe(',,total,100.00,10.00,90.00,,,');
  });

  it('answers an empty day with the header and a zero totals row', async () => {
    expect(await csvOf([])).toBe('\ufeffid,time,type,amount,fee,net,order_id,destination,status\r\n,,total,0.00,0.00,0.00,,,\r\n');
  });

  it('names the file by shop, day and mode', () => {
    expect(dailyReportFileName(42, '2026-11-25', 'test')).toBe('daily-report-42-2026-11-25-test.csv');
  });
});
