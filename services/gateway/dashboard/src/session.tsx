import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect } from 'preact/hooks';
import { Redirect, useLocation, useSearch } from 'wouter-preact';
import { getMe, signOut } from './api/account';
import { ApiError, setUnauthorizedHandler } from './api/client';
import { switchAccount } from './api/team';
import { ErrorMessage, Loading } from './kit/common';
import { useLoad } from './kit/use-load';
import { signInReturningTo } from './return-to';
import { roleMay, type RoleAction } from './roles';
import type { MeView } from './types';

/** The signed-in merchant, for every page behind the sign-in. */
export interface Session {
  me: MeView;
  signOut: () => Promise<void>;
  /** Moves the session to another of the user's accounts and shows that account from its links page, every page anew. */
  switchAccount: (merchantId: string) => Promise<void>;
  /** Reads `/me` again: after a second factor went on or off, or new recovery codes were made. */
  refreshMe: () => Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export const useSession = (): Session => {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in page');
  return s;
};

/**
 * Renders its children for a signed-in merchant only: loads who they are, and sends them to the sign-in page when the
 * session is gone (now, or on any later call that answers 401).
 */
export function SignedIn({ children }: { children: (me: MeView) => ComponentChildren }) {
  const [location, navigate] = useLocation();
  const search = useSearch();
  const me = useLoad(getMe, 'me');
  // Signed out by the server (no session, or it ran out): the sign-in page, and back to this page afterwards.
  const signIn = signInReturningTo(location, search);
  useEffect(() => {
    setUnauthorizedHandler(() => navigate(signIn, { replace: true }));
  }, [navigate, signIn]);
  if (me.error instanceof ApiError && me.error.status === 401) return <Redirect to={signIn} replace />;
  if (me.loading || !me.data)
    return (
      <main id="main" class="narrow">
        {me.loading ? <Loading /> : <ErrorMessage error={me.error} onRetry={me.reload} />}
      </main>
    );
  const session: Session = {
    me: me.data,
    signOut: async () => {
      await signOut();
      navigate('/login', { replace: true });
    },
    switchAccount: async (merchantId) => {
      const next = await switchAccount(merchantId);
      me.setData(next);
      // The root redirects to the landing page of the role in the account switched to (Home, or links for a role that reads no money).
      navigate('/');
    },
    refreshMe: async () => {
      me.setData(await getMe());
    },
  };
  return <SessionContext.Provider value={session}>{children(me.data)}</SessionContext.Provider>;
}

/**
 * Whether the signed-in member's role in the active account may do an action (roles.ts): what a page asks before it
 * shows a button or a section. The server decides anyway.
 */
export const useMay = (): ((action: RoleAction) => boolean) => {
  const { me } = useSession();
  return (action) => roleMay(me.account.role, action);
};

/** Its children for a member whose role may do `action`, nothing for the others. */
export function Allowed({ to, children }: { to: RoleAction; children: ComponentChildren }) {
  return useMay()(to) ? <>{children}</> : null;
}
