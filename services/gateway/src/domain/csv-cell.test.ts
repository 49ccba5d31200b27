import { spreadsheetSafe } from './csv-cell';

describe('spreadsheetSafe', () => {
  it.each(['=HYPERLINK("http://evil")', '+1+cmd', '-2+3', '@SUM(A1)', '\t=1', '\r=1'])('marks %j as text with an apostrophe', (cell) => {
    expect(spreadsheetSafe(cell)).toBe(`'${cell}`);
  });

  it.each(['-500.00', '1485.00', '0.00', '-7', 'order-1001', 'a=b', ''])('leaves %j as it is', (cell) => {
    expect(spreadsheetSafe(cell)).toBe(cell);
  });

  it('leaves an empty field empty', () => {
    expect(spreadsheetSafe(null)).toBeNull();
  });
});
