import { bearerToken, isApiKeyShape, isApiSecretShape, isCashierKeyShape, sessionCookie } from './credentials';

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
  it('recognises the documented prefixes only', () => {
    expect(isCashierKeyShape('svc_live_abcDEF-_1')).toBe(true);
    expect(isCashierKeyShape('svc_test_abc')).toBe(false);
    expect(isCashierKeyShape('svc_live_')).toBe(false);
    expect(isApiKeyShape('pk_live_abc')).toBe(true);
    expect(isApiKeyShape('sk_live_abc')).toBe(false);
    expect(isApiSecretShape('sk_live_abc')).toBe(true);
    expect(isApiSecretShape('sk_live_a b')).toBe(false);
  });
});
