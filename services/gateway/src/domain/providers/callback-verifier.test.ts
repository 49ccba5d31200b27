import { CallbackVerifiers, hexSignatureMatches, hmacSha256Hex, sandboxVerifier } from './callback-verifier';

const SECRET = 'test-sandbox-secret-0123456789abcdef0123';
const body = Buffer.from('{"gateway_payment_id":"sbx_1","status":"paid"}');
const headers = (h: Record<string, string>) => (name: string) => h[name.toLowerCase()];

describe('sandbox callback signature', () => {
  it('accepts the hex HMAC-SHA256 of the exact body, in either letter case', () => {
    const sig = hmacSha256Hex(SECRET, body);
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(sandboxVerifier(SECRET).verify(body, headers({ 'x-provider-signature': sig }))).toBe(true);
    expect(sandboxVerifier(SECRET).verify(body, headers({ 'x-provider-signature': sig.toUpperCase() }))).toBe(true);
  });

  it('refuses a missing header, a malformed one, another secret and a body changed by one byte', () => {
    const v = sandboxVerifier(SECRET);
    const sig = hmacSha256Hex(SECRET, body);
    expect(v.verify(body, headers({}))).toBe(false);
    expect(v.verify(body, headers({ 'x-provider-signature': 'abc' }))).toBe(false);
    expect(v.verify(body, headers({ 'x-provider-signature': `${sig}00` }))).toBe(false);
    expect(v.verify(body, headers({ 'x-provider-signature': 'z'.repeat(64) }))).toBe(false);
    expect(v.verify(body, headers({ 'x-provider-signature': hmacSha256Hex(`${SECRET}x`, body) }))).toBe(false);
    const changed = Buffer.from(body.toString().replace('paid', 'Paid'));
    expect(v.verify(changed, headers({ 'x-provider-signature': sig }))).toBe(false);
  });

  it('compares without throwing for any header value', () => {
    for (const s of ['', ' ', 'sha256=' + 'a'.repeat(64), '\u00e9'.repeat(64)]) {
      expect(hexSignatureMatches(SECRET, body, s)).toBe(false);
    }
  });
});

describe('provider lookup', () => {
  it('finds configured providers only; prototype names find nothing', () => {
    const verifiers = new CallbackVerifiers([sandboxVerifier(SECRET)]);
    expect(verifiers.find('sandbox')?.name).toBe('sandbox');
    for (const name of ['Sandbox', 'stripe', '__proto__', 'constructor', 'toString']) expect(verifiers.find(name)).toBeUndefined();
  });
});
