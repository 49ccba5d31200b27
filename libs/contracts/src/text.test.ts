import { HOSTILE_CHARACTERS, LINE_BREAKS } from '@pl/testing';
import { shopName } from './merchant-shop';
import { freeText, identifierText, textProblem } from './text';

describe('the one text rule', () => {
  it.each(HOSTILE_CHARACTERS)('refuses %s anywhere in one-line and free text', (_name, ch) => {
    for (const text of [ch, `a${ch}`, `${ch}b`, `a${ch}b`]) {
      expect(textProblem(text, { max: 100 })).not.toBeNull();
      expect(textProblem(text, { max: 100, lineBreaks: true })).not.toBeNull();
    }
  });

  it.each(LINE_BREAKS)('takes a %s in free text only', (_name, ch) => {
    expect(freeText(100).safeParse(`first${ch}second`).success).toBe(true);
    expect(identifierText(100).safeParse(`first${ch}second`).success).toBe(false);
  });

  it('refuses the empty string, in every kind of field', () => {
    expect(identifierText(10).safeParse('').error?.issues[0]?.message).toBe('must not be empty');
    expect(freeText(10).safeParse('').error?.issues[0]?.message).toBe('must not be empty');
  });

  it('takes surrogate pairs, right-to-left text and the directional marks that only hint', () => {
    for (const text of ['😀 чай', 'שלום', 'مرحبا', 'a\u200eb\u200fc\u061c', 'Tee 🍵 x2']) {
      expect(textProblem(text, { max: 100 })).toBeNull();
    }
  });

  it('counts length in code points and reports one issue per field', () => {
    expect(identifierText(3).safeParse('😀😀😀').success).toBe(true);
    const r = identifierText(3).safeParse('😀😀😀\u0000');
    expect(r.error?.issues).toHaveLength(1);
    expect(r.error?.issues[0]?.message).toBe('must not contain control characters');
    expect(identifierText(3).safeParse('😀😀😀😀').error?.issues[0]?.message).toBe('must be at most 3 characters');
  });

  it('says which rule a text breaks', () => {
    expect(textProblem('\ud800', { max: 9 })).toBe('must be well-formed Unicode (no lone surrogates)');
    expect(textProblem('a\u0007', { max: 9, lineBreaks: true })).toBe(
      'must not contain control characters other than tab, line feed and carriage return',
    );
    expect(textProblem('a\u202e', { max: 9 })).toBe('must not contain bidirectional override or isolate characters');
  });

  it.each([
    ['zero-width spaces', '\u200b\u200b'],
    ['Hangul fillers', '\u3164\u115f\u1160\uffa0'],
    ['a word joiner and a soft hyphen', '\u2060\u00ad'],
    ['a Braille blank', '\u2800'],
    ['no-break and ideographic spaces', '\u00a0\u3000'],
    ['a byte-order mark', '\ufeff'],
  ])('refuses a shop name made only of invisible characters (%s): the checkout would show no merchant name', (_what, name) => {
    expect(shopName.safeParse(name).error?.issues.map((i) => i.message)).toEqual(['must not be blank']);
  });

  it('takes a shop name with a visible character among invisible ones', () => {
    expect(shopName.safeParse('\u200bКофе\u200b').success).toBe(true);
    expect(shopName.safeParse('☕').success).toBe(true);
  });
});
