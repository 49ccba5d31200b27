import fc from 'fast-check';
import { PhpNumber, phpFloatText, phpJsonDecode, phpJsonEncode, type PhpJson } from './php-json';

/** A decoded value back as plain JS (Maps to objects in key order, numbers as JS numbers), to compare with the input. */
function plain(value: PhpJson): unknown {
  if (value instanceof PhpNumber) return Number(value.text);
  if (Array.isArray(value)) return value.map((v: PhpJson) => plain(v));
  if (value instanceof Map) return Object.fromEntries([...(value as ReadonlyMap<string, PhpJson>)].map(([k, v]) => [k, plain(v)]));
  return value;
}

// Keys that are not integers (PHP would print an object keyed 0..n-1 as a list), values JSON can hold.
const key = fc.string({ unit: 'binary', maxLength: 8 }).filter((k) => !/^(0|[1-9]\d*)$/.test(k));
const value = fc.letrec<{ v: PhpJson }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.string({ unit: 'binary' }),
    fc.integer(),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(key, tie('v'), { maxKeys: 4, minKeys: 1 }),
  ),
})).v;

describe('PHP json_encode', () => {
  it('escapes / always, and non-ASCII as lowercase \\uXXXX by default', () => {
    expect(phpJsonEncode({ url: 'https://a.b/c', t: 'é€😀' })).toBe('{"url":"https:\\/\\/a.b\\/c","t":"\\u00e9\\u20ac\\ud83d\\ude00"}');
  });

  it('writes non-ASCII as is with JSON_UNESCAPED_UNICODE, except U+2028 and U+2029', () => {
    expect(phpJsonEncode({ t: 'é/😀\u2028\u2029' }, { unescapedUnicode: true })).toBe('{"t":"é\\/😀\\u2028\\u2029"}');
  });

  it('escapes quotes, backslashes and control characters as PHP does, and leaves DEL alone', () => {
    expect(phpJsonEncode('"\\\b\f\n\r\t\u0001\u001f\u007f')).toBe('"\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\u007f"');
  });

  it('refuses a lone surrogate, as PHP refuses malformed UTF-8', () => {
    expect(() => phpJsonEncode('\ud800')).toThrow(/surrogate/);
    expect(() => phpJsonDecode('"\\ud800"')).toThrow(/surrogate/);
  });

  it('prints decoded numbers as PHP prints the int or float it reads', () => {
    const cases: [string, string][] = [
      ['100', '100'],
      ['-0', '0'],
      ['1.50', '1.5'],
      ['10.0', '10'],
      ['1e2', '100'],
      ['0.0001', '0.0001'],
      ['0.00001', '1.0e-5'],
      ['1e16', '10000000000000000'],
      ['1e17', '1.0e+17'],
      ['1.5e300', '1.5e+300'],
      ['0.1', '0.1'],
      ['9223372036854775807', '9223372036854775807'],
      ['9223372036854775808', '9.223372036854776e+18'],
    ];
    for (const [text, php] of cases) expect(phpJsonEncode(phpJsonDecode(text))).toBe(php);
    expect(() => phpJsonEncode(phpJsonDecode('1e400'))).toThrow(/Inf/);
    expect(phpFloatText(-2.5)).toBe('-2.5');
  });

  it('prints a decoded object keyed 0..n-1, or an empty one, as a list: json_decode(..., true) made it a PHP array', () => {
    expect(phpJsonEncode(phpJsonDecode('{"0":"a","1":"b"}'))).toBe('["a","b"]');
    expect(phpJsonEncode(phpJsonDecode('{"convert":{}}'))).toBe('{"convert":[]}');
    expect(phpJsonEncode(phpJsonDecode('{"1":"a","0":"b"}'))).toBe('{"1":"a","0":"b"}');
  });

  it('keeps the first place and the last value of a repeated key', () => {
    expect(phpJsonEncode(phpJsonDecode('{"a":1,"b":2,"a":3}'))).toBe('{"a":3,"b":2}');
  });

  it('refuses what json_decode refuses', () => {
    for (const text of [
      '',
      '{',
      '{"a":1,}',
      '[1,]',
      "{'a':1}",
      '01',
      '1.',
      '"\t"',
      'nul',
      '{"a" 1}',
      '"\\x"',
      `${'['.repeat(513)}${']'.repeat(513)}`,
    ]) {
      expect(() => phpJsonDecode(text)).toThrow();
    }
  });

  it('decodes what it encodes back to the same value, with every slash escaped (property)', () => {
    fc.assert(
      fc.property(value, fc.boolean(), (v, unescapedUnicode) => {
        let text: string;
        try {
          text = phpJsonEncode(v, { unescapedUnicode });
        } catch {
          // Only a lone surrogate makes it fail, as invalid UTF-8 makes PHP fail.
          expect(JSON.stringify(v)).toMatch(/\\ud[89a-f]/);
          return;
        }
        expect(text).not.toMatch(/(^|[^\\])(\\\\)*\//);
        if (!unescapedUnicode) expect(text).toMatch(/^[\x20-\x7e]*$/);
        expect(plain(phpJsonDecode(text))).toEqual(v);
        expect(JSON.parse(text)).toEqual(v);
      }),
      { numRuns: 500 },
    );
  });
});
