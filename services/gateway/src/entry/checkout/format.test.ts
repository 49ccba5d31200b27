import fc from 'fast-check';
import { buyerFee, formatCrypto, formatDateTime, formatRemaining, formatRub, networkLabel } from './format';

const NB = '\u00a0';

describe('formatRub', () => {
  it.each([
    ['0.50', `0,50${NB}₽`, `0.50${NB}₽`],
    ['999.00', `999,00${NB}₽`, `999.00${NB}₽`],
    ['1010.00', `1${NB}010,00${NB}₽`, `1,010.00${NB}₽`],
    ['99999999.99', `99${NB}999${NB}999,99${NB}₽`, `99,999,999.99${NB}₽`],
  ])('formats %s for Russian and English readers', (text, ru, en) => {
    expect(formatRub(text, 'ru')).toBe(ru);
    expect(formatRub(text, 'en')).toBe(en);
  });

  it('keeps every digit of any amount (no floating point on the way)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 9_999_999_999n }), (kopecks) => {
        const text = `${kopecks / 100n}.${String(kopecks % 100n).padStart(2, '0')}`;
        expect(formatRub(text, 'en').replace(/[^0-9]/g, '')).toBe(text.replace('.', ''));
      }),
    );
  });
});

describe('buyerFee', () => {
  it('is the part of the fee the buyer pays, exact to the kopeck', () => {
    expect(buyerFee('1010.10', '1000.00')).toBe('10.10');
    expect(buyerFee('0.03', '0.01')).toBe('0.02');
  });

  it('is null when the buyer pays no fee', () => {
    expect(buyerFee('1000.00', '1000.00')).toBeNull();
  });
});

describe('formatRemaining', () => {
  it.each([
    [0, '00:00:00'],
    [-5000, '00:00:00'],
    [999, '00:00:00'],
    [61_000, '00:01:01'],
    [86_399_000, '23:59:59'],
    [86_400_000, `1${NB}d 00:00:00`],
    [30 * 86_400_000 - 1000, `29${NB}d 23:59:59`],
  ])('shows %i ms as %s', (ms, shown) => {
    expect(formatRemaining(ms, 'en')).toBe(shown);
  });

  it('uses the Russian day abbreviation', () => {
    expect(formatRemaining(2 * 86_400_000 + 3_723_000, 'ru')).toBe(`2${NB}д 01:02:03`);
  });
});

describe('formatDateTime', () => {
  it('shows the moment in Moscow time whatever zone the server runs in', () => {
    expect(formatDateTime('2026-11-22T14:05:09+03:00', 'en')).toBe('22 November 2026 at 14:05 (Moscow time)');
    expect(formatDateTime('2026-11-22T11:05:09Z', 'ru')).toBe('22 ноября 2026 г. в 14:05 (по московскому времени)');
  });

  it('gives back a value it cannot read rather than "Invalid Date"', () => {
    expect(formatDateTime('soon', 'en')).toBe('soon');
  });
});

describe('crypto amounts and networks', () => {
  it('shows a crypto amount exactly as given, whatever the language', () => {
    expect(formatCrypto('10.631579', 'USDT')).toBe(`10.631579${NB}USDT`);
  });

  it('names each network for people and falls back to the wire string', () => {
    expect(networkLabel('USDT-TRC20')).toEqual({ coin: 'USDT', chain: 'TRC-20 (Tron)' });
    expect(networkLabel('DOGE-DOGE')).toEqual({ coin: 'DOGE-DOGE', chain: 'DOGE-DOGE' });
  });
});
