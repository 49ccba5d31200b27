import { apiKeyMode, apiKeyPairMode, apiSecretMode, bearerToken, cashierKeyMode, looksLikeCashierKey, sessionCookie } from './credentials';

describe('bearerToken', () => {
  it('reads the token after the Bearer scheme, in any letter case', () => {
    expect(bearerToken('Bearer abc.DEF_-1')).toBe('abc.DEF_-1');
    expect(bearerToken('bearer svc_live_x')).toBe('svc_live_x');
  });

  it.each([undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer two tokens', 'Bearertoken'])('finds no token in %j', (h) => {
    expect(bearerToken(h)).toBeNull();
  });
});

describe('sessionCookie', () => {
  it('reads sid among other cookies', () => {
    expect(sessionCookie('theme=dark; sid=tok_123; lang=ru')).toBe('tok_123');
  });

  it.each([undefined, '', 'theme=dark', 'sid=', 'garbage'])('finds no session in %j', (h) => {
    expect(sessionCookie(h)).toBeNull();
  });
});

describe('credential shapes', () => {
  it('reads the mode from the documented prefixes only', () => {
    expect(cashierKeyMode('svc_live_abcDEF-_1')).toBe('live');
    expect(cashierKeyMode('svc_test_abc')).toBe('test');
    expect(cashierKeyMode('svc_live_')).toBeNull();
    expect(cashierKeyMode('svc_TEST_abc')).toBeNull();
    expect(cashierKeyMode(`svc_test_${'a'.repeat(248)}`)).toBeNull();
    expect(apiKeyMode('pk_live_abc')).toBe('live');
    expect(apiKeyMode('pk_test_abc')).toBe('test');
    expect(apiKeyMode('sk_live_abc')).toBeNull();
    expect(apiKeyMode('pk_test_a.b')).toBeNull();
    expect(apiSecretMode('sk_live_abc')).toBe('live');
    expect(apiSecretMode('sk_test_abc')).toBe('test');
    expect(apiSecretMode('sk_live_a b')).toBeNull();
  });

  it('gives a pair a mode only when both halves are of it', () => {
    expect(apiKeyPairMode('pk_live_a', 'sk_live_b')).toBe('live');
    expect(apiKeyPairMode('pk_test_a', 'sk_test_b')).toBe('test');
    expect(apiKeyPairMode('pk_live_a', 'sk_test_b')).toBeNull();
    expect(apiKeyPairMode('pk_test_a', 'sk_live_b')).toBeNull();
    expect(apiKeyPairMode('pk_test_a', 'sk_test_')).toBeNull();
  });

  it('tells a Bearer cashier key of either mode from a session token', () => {
    expect(looksLikeCashierKey('svc_live_x')).toBe(true);
    expect(looksLikeCashierKey('svc_test_')).toBe(true);
    expect(looksLikeCashierKey('tok_abc')).toBe(false);
  });
});
