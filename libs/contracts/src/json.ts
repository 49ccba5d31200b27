import { parse as parseLossless } from 'lossless-json';

/**
 * A JSON number that is not a plain safe integer, kept as its exact source text. Money rules judge
 * a number by the digits the client wrote (`10.005`, `1e2`), which `JSON.parse` would have lost.
 */
export class JsonNumberText {
  constructor(readonly source: string) {}
  toJSON(): string {
    return this.source;
  }
}

const SAFE_INTEGER_TEXT = /^-?(0|[1-9][0-9]{0,14})$/;

function parseNumber(source: string): number | JsonNumberText {
  return SAFE_INTEGER_TEXT.test(source) ? Number(source) : new JsonNumberText(source);
}

/**
 * Parses a request body. Plain integers become numbers; every other number stays a
 * {@link JsonNumberText}. Duplicate keys are a syntax error. Throws on malformed JSON.
 */
export function parseJsonPreservingNumbers(text: string): unknown {
  return parseLossless(text, null, parseNumber);
}
