import fc from 'fast-check';
import { kopecksToRoublesJson, roublesJsonToKopecks } from './amount';

describe('Raiffeisen amounts: kopecks <-> the JSON number text of roubles', () => {
  it.each([
    [125919, '1259.19'],
    [10050, '100.5'],
    [100, '1'],
    [15000, '150'],
    [111011, '1110.11'],
    [1, '0.01'],
    [10, '0.1'],
  ])('writes %i kopecks as %s', (kopecks, text) => {
    expect(kopecksToRoublesJson(kopecks)).toBe(text);
  });

  it.each([
    ['100.50', 10050],
    ['100.5', 10050],
    ['101.01', 10101],
    ['150', 15000],
    ['10', 1000],
    ['0.01', 1],
    ['1110.110', 111011],
  ])('reads %s as %i kopecks', (text, kopecks) => {
    expect(roublesJsonToKopecks(text)).toBe(kopecks);
  });

  it.each(['1e2', '-1', '1.001', '01.5', '', '1.', '.5', ' 1', '1,5', '12345678901234.00'])('refuses %j, which is no exact amount', (text) => {
    expect(roublesJsonToKopecks(text)).toBeNull();
  });

  it('refuses kopecks that are not a whole, non-negative amount', () => {
    expect(() => kopecksToRoublesJson(1.5)).toThrow(RangeError);
    expect(() => kopecksToRoublesJson(-1)).toThrow(RangeError);
  });

  it('reads back every amount it writes, and the text survives a JS number unchanged', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999_99 }), (kopecks) => {
        const text = kopecksToRoublesJson(kopecks);
        expect(roublesJsonToKopecks(text)).toBe(kopecks);
        expect(JSON.stringify(Number(text))).toBe(text);
      }),
    );
  });

  it('reads an amount with trailing zeros as the same kopecks', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99_999_999_999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 3 }),
        (roubles, cents, zeros) => {
          const text = `${roubles}.${String(cents).padStart(2, '0')}${'0'.repeat(zeros)}`;
          expect(roublesJsonToKopecks(text)).toBe(roubles * 100 + cents);
        },
      ),
    );
  });
});
