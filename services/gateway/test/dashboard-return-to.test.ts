import { pageAfterSignIn, signInReturningTo } from '../dashboard/src/return-to';

describe('the page asked for before signing in', () => {
  it('rides along to the sign-in page with its query and opens afterwards', () => {
    const login = signInReturningTo('/payouts', 'status=pending_approval');
    expect(login).toBe('/login?next=%2Fpayouts%3Fstatus%3Dpending_approval');
    expect(pageAfterSignIn(login.slice('/login?'.length))).toBe('/payouts?status=pending_approval');
    expect(pageAfterSignIn(signInReturningTo('/security', '').slice('/login?'.length))).toBe('/security');
  });

  it('sends the root and the sign-in page itself to plain /login, and plain sign-in to the landing page', () => {
    expect(signInReturningTo('/', '')).toBe('/login');
    expect(signInReturningTo('/login', 'next=%2Fteam')).toBe('/login');
    expect(pageAfterSignIn('')).toBe('/');
    expect(pageAfterSignIn('next=')).toBe('/');
  });

  it('takes only a path of the dashboard: never another origin, a protocol-relative host or a backslash', () => {
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', 'team', '/login?next=/x', '/a b'])
      expect(pageAfterSignIn(new URLSearchParams({ next }).toString())).toBe('/');
    // Escapes stay part of a path under the dashboard's base: no header or origin can come of them.
    expect(pageAfterSignIn(new URLSearchParams({ next: '/links/%0d%0a' }).toString())).toBe('/links/%0d%0a');
    expect(signInReturningTo('//evil.example', '')).toBe('/login');
  });
});
