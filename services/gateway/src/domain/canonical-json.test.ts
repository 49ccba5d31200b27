import { parseJsonPreservingNumbers } from '@pl/contracts';
import { bodyFingerprint, canonicalJson } from './canonical-json';

const parse = (text: string) => parseJsonPreservingNumbers(text);

describe('canonicalJson', () => {
  it('sorts keys at every level and drops whitespace', () => {
    expect(canonicalJson(parse('{ "b": 1, "a": { "d": [1, {"z": true, "y": null}], "c": "x" } }'))).toBe(
      '{"a":{"c":"x","d":[1,{"y":null,"z":true}]},"b":1}',
    );
  });

  it('keeps a decimal number as its source text, distinct from the same digits in a string', () => {
    expect(canonicalJson(parse('{"amount": 10.10}'))).toBe('{"amount":10.10}');
    expect(canonicalJson(parse('{"amount": "10.10"}'))).toBe('{"amount":"10.10"}');
  });
});

describe('bodyFingerprint', () => {
  it('is the same for bodies that differ only in key order and spacing', () => {
    expect(bodyFingerprint(parse('{"shop_id":1,"amount":"5.00"}'))).toBe(bodyFingerprint(parse('{ "amount" : "5.00", "shop_id" : 1 }')));
  });

  it('differs when a value differs', () => {
    expect(bodyFingerprint(parse('{"amount":"5.00"}'))).not.toBe(bodyFingerprint(parse('{"amount":"5.01"}')));
    expect(bodyFingerprint(parse('{"amount":5.00}'))).not.toBe(bodyFingerprint(parse('{"amount":"5.00"}')));
  });

  it('is a 64-character hex SHA-256', () => {
    expect(bodyFingerprint({})).toMatch(/^[0-9a-f]{64}$/);
  });
});
