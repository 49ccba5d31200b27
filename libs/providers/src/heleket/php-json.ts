/**
 * JSON as PHP writes and reads it. Heleket signs `json_encode` output: the request rule signs the bytes sent
 * (PHP's defaults: `/` as `\/`, non-ASCII as `\uXXXX`), and a callback's `sign` covers the body without its `sign`
 * member re-encoded by `json_encode($data, JSON_UNESCAPED_UNICODE)` after `json_decode($body, true)`. Reproducing
 * that re-encoding needs what `JSON.parse` loses: the order of integer-like keys, and which numbers PHP reads as
 * integers and which as floats (and how it prints the floats back).
 */

/** A number as it appeared in the text; `phpJsonEncode` prints it as PHP prints the int or float it decodes to. */
export class PhpNumber {
  constructor(readonly text: string) {}
}

/** A decoded value: JSON objects keep their keys in text order (PHP arrays do; JS objects move integer keys first). */
export type PhpJson =
  null | boolean | string | number | PhpNumber | readonly PhpJson[] | ReadonlyMap<string, PhpJson> | { readonly [key: string]: PhpJson };

export interface PhpEncodeOptions {
  /** `JSON_UNESCAPED_UNICODE`: non-ASCII written as is (U+2028 and U+2029 still escaped, as PHP does). */
  readonly unescapedUnicode: boolean;
}

class PhpJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PhpJsonError';
  }
}

const hex4 = (code: number): string => `\\u${code.toString(16).padStart(4, '0')}`;

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

function encodeString(s: string, options: PhpEncodeOptions): string {
  let out = '"';
  for (let i = 0; i < s.length; i += 1) {
    const ch = s.charAt(i);
    const code = s.charCodeAt(i);
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (code < 0x20) out += hex4(code);
    else if (code < 0x80) out += ch;
    else if (code >= 0xd800 && code <= 0xdfff) {
      // PHP refuses invalid UTF-8; a JS string's lone surrogate is the same thing.
      const next = s.charCodeAt(i + 1);
      if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) throw new PhpJsonError('Malformed UTF-16: a lone surrogate');
      out += options.unescapedUnicode ? s.slice(i, i + 2) : hex4(code) + hex4(next);
      i += 1;
    } else if (!options.unescapedUnicode || code === 0x2028 || code === 0x2029) out += hex4(code);
    else out += ch;
  }
  return `${out}"`;
}

/** PHP_INT_MAX; a JSON integer beyond the 64-bit range decodes to a float in PHP. */
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/** A double as PHP 7.1+ prints it with `serialize_precision = -1` (php_gcvt, shortest round trip, 17 digits). */
export function phpFloatText(value: number): string {
  if (!Number.isFinite(value)) throw new PhpJsonError('Inf and NaN cannot be JSON encoded');
  const negative = value < 0 || Object.is(value, -0);
  const [mantissa = '0', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  // dtoa's decimal point position: value = 0.<digits> x 10^decpt.
  let decpt = value === 0 ? 1 : Number(exponent) + 1;
  let out = negative ? '-' : '';
  if (decpt < 0 ? decpt < -3 : decpt > 17) {
    decpt -= 1;
    out += `${digits.charAt(0)}.${digits.length > 1 ? digits.slice(1) : '0'}e${decpt < 0 ? '-' : '+'}${Math.abs(decpt)}`;
  } else if (decpt < 0) {
    out += `0.${'0'.repeat(-decpt)}${digits}`;
  } else {
    const whole = digits.slice(0, decpt).padEnd(decpt, '0');
    const fraction = digits.slice(decpt);
    out += fraction === '' ? whole || '0' : `${whole || '0'}.${fraction}`;
  }
  return out;
}

function encodeNumber(value: number | PhpNumber): string {
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER ? String(value) : phpFloatText(value);
  if (/^-?\d+$/.test(value.text)) {
    const n = BigInt(value.text);
    if (n >= INT64_MIN && n <= INT64_MAX) return n.toString();
  }
  return phpFloatText(Number(value.text));
}

/** PHP writes an array as a JSON list when its keys are exactly 0..n-1 in order; keys like "0" are integers to PHP. */
function isList(keys: readonly string[]): boolean {
  return keys.every((key, index) => key === String(index));
}

function encodeValue(value: PhpJson, options: PhpEncodeOptions, depth: number): string {
  if (depth > MAX_DEPTH) throw new PhpJsonError('Maximum stack depth exceeded');
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return encodeString(value, options);
  if (typeof value === 'number' || value instanceof PhpNumber) return encodeNumber(value);
  if (Array.isArray(value)) return `[${value.map((v: PhpJson) => encodeValue(v, options, depth + 1)).join(',')}]`;
  const entries: [string, PhpJson][] =
    value instanceof Map ? [...(value as ReadonlyMap<string, PhpJson>)] : Object.entries(value as Readonly<Record<string, PhpJson>>);
  // A decoded object is a PHP array (json_decode(..., true)): empty or 0..n-1 keyed, it prints as a list.
  if (value instanceof Map && isList(entries.map(([k]) => k))) return `[${entries.map(([, v]) => encodeValue(v, options, depth + 1)).join(',')}]`;
  return `{${entries.map(([k, v]) => `${encodeString(k, options)}:${encodeValue(v, options, depth + 1)}`).join(',')}}`;
}

/**
 * `json_encode($value, $flags)`. Plain JS objects print as JSON objects (a request body, `(object)` in PHP); Maps from
 * `phpJsonDecode` print as the PHP arrays they decode to. Throws PhpJsonError where PHP's json_encode fails.
 */
export function phpJsonEncode(value: PhpJson, options: PhpEncodeOptions = { unescapedUnicode: false }): string {
  return encodeValue(value, options, 0);
}

/** json_decode's default depth (512): deeper nesting fails to decode in PHP. */
const MAX_DEPTH = 512;

class Parser {
  private at = 0;

  constructor(private readonly text: string) {}

  parse(): PhpJson {
    const value = this.value(1);
    this.skipSpace();
    if (this.at !== this.text.length) this.fail('trailing characters');
    return value;
  }

  private fail(why: string): never {
    throw new PhpJsonError(`Syntax error at ${this.at}: ${why}`);
  }

  private skipSpace(): void {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text.charAt(this.at))) this.at += 1;
  }

  private value(depth: number): PhpJson {
    this.skipSpace();
    const ch = this.text.charAt(this.at);
    if (ch === '{') return this.object(depth);
    if (ch === '[') return this.array(depth);
    if (ch === '"') return this.string();
    if (ch === '-' || (ch >= '0' && ch <= '9')) return this.number();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return v;
      }
    }
    return this.fail('unexpected character');
  }

  private object(depth: number): Map<string, PhpJson> {
    if (depth > MAX_DEPTH) this.fail('too deep');
    this.at += 1;
    const map = new Map<string, PhpJson>();
    this.skipSpace();
    if (this.text.charAt(this.at) === '}') {
      this.at += 1;
      return map;
    }
    for (;;) {
      this.skipSpace();
      if (this.text.charAt(this.at) !== '"') this.fail('expected a key');
      const key = this.string();
      this.skipSpace();
      if (this.text.charAt(this.at) !== ':') this.fail("expected ':'");
      this.at += 1;
      // A repeated key keeps its first place and takes the last value, as PHP's array assignment does.
      map.set(key, this.value(depth + 1));
      this.skipSpace();
      const next = this.text.charAt(this.at);
      this.at += 1;
      if (next === '}') return map;
      if (next !== ',') this.fail("expected ',' or '}'");
    }
  }

  private array(depth: number): PhpJson[] {
    if (depth > MAX_DEPTH) this.fail('too deep');
    this.at += 1;
    const list: PhpJson[] = [];
    this.skipSpace();
    if (this.text.charAt(this.at) === ']') {
      this.at += 1;
      return list;
    }
    for (;;) {
      list.push(this.value(depth + 1));
      this.skipSpace();
      const next = this.text.charAt(this.at);
      this.at += 1;
      if (next === ']') return list;
      if (next !== ',') this.fail("expected ',' or ']'");
    }
  }

  private number(): PhpNumber {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 400));
    if (!m) return this.fail('bad number');
    this.at += m[0].length;
    return new PhpNumber(m[0]);
  }

  private string(): string {
    this.at += 1;
    let out = '';
    for (;;) {
      const code = this.text.charCodeAt(this.at);
      if (Number.isNaN(code)) this.fail('unterminated string');
      if (code < 0x20) this.fail('control character in a string');
      this.at += 1;
      if (code === 0x22) break;
      if (code !== 0x5c) {
        out += String.fromCharCode(code);
        continue;
      }
      const esc = this.text.charAt(this.at);
      this.at += 1;
      const simple = ({ '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Readonly<Record<string, string>>)[esc];
      if (simple !== undefined) out += simple;
      else if (esc === 'u') out += this.unicodeEscape();
      else this.fail('bad escape');
    }
    if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(out)) this.fail('single unpaired UTF-16 surrogate');
    return out;
  }

  private unicodeEscape(): string {
    const digits = this.text.slice(this.at, this.at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) this.fail('bad \\u escape');
    this.at += 4;
    return String.fromCharCode(parseInt(digits, 16));
  }
}

/** `json_decode($text, true)`: objects as ordered Maps, numbers with their text. Throws PhpJsonError where PHP returns null. */
export function phpJsonDecode(text: string): PhpJson {
  return new Parser(text).parse();
}

/** UTF-8 bytes as text, failing on invalid UTF-8 as json_decode does. */
export function utf8Text(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new PhpJsonError('Malformed UTF-8');
  }
}
