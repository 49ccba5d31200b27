import { safeMessage } from './client';

describe("a provider's message shown to a merchant", () => {
  it('loses control characters, line separators and runs of blanks', () => {
    expect(safeMessage('Amount\u0000 too\r\nsmall\u2028\u0085  now\t')).toBe('Amount too small now');
  });

  it('is cut to 500 characters', () => {
    const text = safeMessage('x'.repeat(2000));
    expect(text).toHaveLength(500);
    expect(text.endsWith('…')).toBe(true);
  });
});
