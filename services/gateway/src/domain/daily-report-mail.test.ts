import type { DailyReportRow } from '@pl/contracts';
import { dailyReportMailDay, shopDayFigures } from './daily-report-mail';

describe('the day whose mail is due', () => {
  test('is none before 07:00 Moscow, and yesterday from 07:00 to midnight', () => {
    expect(dailyReportMailDay(new Date('2026-11-21T03:59:59.999Z'))).toBeNull(); // 06:59:59 Moscow
    expect(dailyReportMailDay(new Date('2026-11-21T04:00:00Z'))).toBe('2026-11-20'); // 07:00
    expect(dailyReportMailDay(new Date('2026-11-21T20:59:59Z'))).toBe('2026-11-20'); // 23:59:59
    expect(dailyReportMailDay(new Date('2026-11-21T21:00:00Z'))).toBeNull(); // 00:00 on the 22nd
    expect(dailyReportMailDay(new Date('2027-01-01T05:00:00Z'))).toBe('2026-12-31'); // across the year
  });
});

const row = (type: DailyReportRow['type'], amount: string, fee: string | null, net: string | null): DailyReportRow => ({
  id: '00000000-0000-4000-8000-000000000001',
  type,
  at: '2026-11-20T12:00:00+03:00',
  amount,
  fee,
  net,
  order_id: '=cmd',
  destination: null,
  status: 'paid',
});

async function* rowsOf(rows: DailyReportRow[]): AsyncGenerator<DailyReportRow> {
  yield* rows;
}

test('a shop’s figures: its payments counted and summed, its fee and net the report’s total line', async () => {
  const figures = await shopDayFigures(
    { id: 7, name: 'Main' },
    rowsOf([
      row('payment', '1000.00', '10.00', '990.00'),
      row('payment', '0.10', '0.00', '0.10'),
      row('refund', '-400.00', '0.00', '-400.00'),
      // An arrival not yet settled moves no balance: it is in no total.
      row('unresolved_payment', '300.00', null, null),
    ]),
  );
  expect(figures).toEqual({ id: 7, name: 'Main', payments: 2, gross: '1000.10', fee: '10.00', net: '590.10' });
  expect(await shopDayFigures({ id: 8, name: 'Quiet' }, rowsOf([]))).toEqual({
    id: 8,
    name: 'Quiet',
    payments: 0,
    gross: '0.00',
    fee: '0.00',
    net: '0.00',
  });
});
