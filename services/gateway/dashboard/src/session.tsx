import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect } from 'preact/hooks';
import { Redirect, useLocation } from 'wouter-preact';
import { getMe, signOut } from './api/account';
import { ApiError, setUnauthorizedHandler } from './api/client';
import { ErrorMessage, Loading } from './kit/common';
import { useLoad } from './kit/use-load';
import type { MeView } from './types';

/** The signed-in merchant, for every page behind the sign-in. */
export interface Session {
  me: MeView;
  signOut: () => Promise<void>;
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
  const [, navigate] = useLocation();
  const me = useLoad(getMe, 'me');
  useEffect(() => {
    setUnauthorizedHandler(() => navigate('/login', { replace: true }));
  }, [navigate]);
  if (me.error instanceof ApiError && me.error.status === 401) return <Redirect to="/login" replace />;
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
  };
  return <SessionContext.Provider value={session}>{children(me.data)}</SessionContext.Provider>;
}
