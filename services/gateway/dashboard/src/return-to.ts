/**
 * The page a person asked for before signing in (a mail's link to the Security page, a bookmark, a session that ran
 * out on a page) rides along to the sign-in page as `/login?next=…` and opens once they are in. Only a path of the
 * dashboard itself is taken: it is navigated to under the dashboard's base, and anything else (another origin, a
 * protocol-relative `//host`, a backslash a browser reads as a slash) is dropped for the member's landing page.
 */
const DASHBOARD_PATH = /^\/(?![/\\])[A-Za-z0-9\-._~/?=&%]*$/;

/** The sign-in page's address that comes back to `path` (with its query) afterwards; plain `/login` for the root. */
export function signInReturningTo(path: string, search: string): string {
  const here = search ? `${path}?${search}` : path;
  if (path === '/' || path.startsWith('/login') || !DASHBOARD_PATH.test(here)) return '/login';
  return `/login?${new URLSearchParams({ next: here }).toString()}`;
}

/** Where the sign-in page goes once signed in: the page asked for, when it is one of the dashboard's, else the root. */
export function pageAfterSignIn(search: string): string {
  const next = new URLSearchParams(search).get('next');
  return next !== null && DASHBOARD_PATH.test(next) && !next.startsWith('/login') ? next : '/';
}
