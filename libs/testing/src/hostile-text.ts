/**
 * Characters the one text rule (@pl/contracts text.ts) refuses in every field, named for test titles: NUL,
 * lone surrogates (as JSON's `"\ud800"` delivers them), C0, DEL and C1 controls, and every bidirectional
 * override and isolate control.
 */
export const HOSTILE_CHARACTERS: readonly (readonly [name: string, character: string])[] = [
  ['NUL', '\u0000'],
  ['a lone high surrogate', '\ud800'],
  ['a lone low surrogate', '\udfff'],
  ['bell (C0)', '\u0007'],
  ['escape (C0)', '\u001b'],
  ['unit separator (C0)', '\u001f'],
  ['DEL', '\u007f'],
  ['next line (C1)', '\u0085'],
  ['CSI (C1)', '\u009b'],
  ['LRE', '\u202a'],
  ['RLE', '\u202b'],
  ['PDF', '\u202c'],
  ['LRO', '\u202d'],
  ['RLO', '\u202e'],
  ['LRI', '\u2066'],
  ['RLI', '\u2067'],
  ['FSI', '\u2068'],
  ['PDI', '\u2069'],
];

/** The three controls free text (a description) may hold, and one-line text may not. */
export const LINE_BREAKS: readonly (readonly [name: string, character: string])[] = [
  ['tab', '\t'],
  ['line feed', '\n'],
  ['carriage return', '\r'],
];
