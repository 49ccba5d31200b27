import { useLocation } from 'wouter-preact';
import { getMe, signOut } from '../api/account';
import { ApiError } from '../api/client';
import { acceptInvitation } from '../api/team';
import { useI18n } from '../i18n';
import { ErrorMessage, Loading, PageTitle } from '../kit/common';
import { newPasswordRules, useMailedToken } from '../kit/credentials';
import { TextField, useApiForm } from '../kit/forms';
import { useAction, useLoad } from '../kit/use-load';

/**
 * Where an invitation mail's link lands (`/dashboard/invitation?token=`). As the route decides: a signed-in user joins
 * as themselves (it must be the invited email's); anyone else gives a password, which signs in the invited email's
 * user or signs one up. Either way the session then acts for the inviting account, whose landing page for the member's role opens.
 */
export function InvitationPage() {
  const { t } = useI18n();
  const token = useMailedToken();
  const me = useLoad(getMe, 'me');
  const [, navigate] = useLocation();
  const joined = () => navigate('/', { replace: true });
  let body;
  if (token === null) body = <p class="banner">{t.linkWithoutToken}</p>;
  else if (me.loading) body = <Loading />;
  else if (me.data) body = <JoinSignedIn token={token} email={me.data.email} onJoined={joined} onSignedOut={me.reload} />;
  else if (me.error instanceof ApiError && me.error.status === 401) body = <JoinWithPassword token={token} onJoined={joined} />;
  else body = <ErrorMessage error={me.error} onRetry={me.reload} />;
  return (
    <>
      <PageTitle title={t.invitationTitle}>{t.invitationTitle}</PageTitle>
      {body}
    </>
  );
}

function JoinSignedIn({ token, email, onJoined, onSignedOut }: { token: string; email: string; onJoined: () => void; onSignedOut: () => void }) {
  const { t } = useI18n();
  const join = useAction(async () => {
    await acceptInvitation({ token });
    onJoined();
  });
  const leave = useAction(async () => {
    await signOut();
    onSignedOut();
  });
  const wrongUser = join.error instanceof ApiError && join.error.code === 'common.err.forbidden';
  return (
    <div class="card">
      <p>{t.invitationSignedIn(email)}</p>
      {wrongUser ? (
        <p class="error" role="alert">
          {t.invitationWrongUser}
        </p>
      ) : (
        <ErrorMessage error={join.error} />
      )}
      <ErrorMessage error={leave.error} />
      <div class="actions">
        {!wrongUser && (
          <button type="button" class="primary" onClick={() => join.run()} disabled={join.busy}>
            {join.busy ? t.accepting : t.acceptInvitation}
          </button>
        )}
        <button type="button" onClick={() => leave.run()} disabled={leave.busy}>
          {t.signOut}
        </button>
      </div>
    </div>
  );
}

function JoinWithPassword({ token, onJoined }: { token: string; onJoined: () => void }) {
  const { t } = useI18n();
  const form = useApiForm<{ password: string }>({ password: '' }, ['password'], async (v, { setError }) => {
    try {
      await acceptInvitation({ token, password: v.password });
    } catch (e) {
      // 401: the invited email has a user, and this is not its password.
      if (!(e instanceof ApiError && e.status === 401)) throw e;
      setError('password', { type: 'server', message: t.invitationWrongPassword }, { shouldFocus: true });
      return;
    }
    onJoined();
  });
  const { errors, isSubmitting } = form.formState;
  return (
    <form class="card" onSubmit={form.onSubmit} noValidate>
      <p>{t.invitationNoSession}</p>
      <TextField
        id="password"
        label={t.password}
        type="password"
        autocomplete="current-password"
        hint={t.invitationPasswordHint}
        error={errors.password}
        field={form.register('password', newPasswordRules(t))}
      />
      <ErrorMessage error={form.formError} />
      <button type="submit" class="primary" disabled={isSubmitting}>
        {isSubmitting ? t.accepting : t.acceptInvitation}
      </button>
    </form>
  );
}
