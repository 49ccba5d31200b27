import { useEffect } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { confirmEmail } from '../api/sign-up';
import { useI18n } from '../i18n';
import { ErrorMessage, Loading, Notice, PageTitle } from '../kit/common';
import { useMailedToken } from '../kit/credentials';
import { useAction } from '../kit/use-load';

/**
 * Where the sign-up mail's link lands (`/dashboard/confirm-email?token=`): confirms the email as soon as it opens, with
 * or without a session, and says so.
 */
export function ConfirmEmailPage() {
  const { t } = useI18n();
  const token = useMailedToken();
  const confirm = useAction(confirmEmail);
  useEffect(() => {
    if (token !== null) confirm.run(token);
  }, [token]);
  return (
    <>
      <PageTitle title={t.confirmEmailTitle}>{t.confirmEmailTitle}</PageTitle>
      {token === null ? (
        <p class="banner">{t.linkWithoutToken}</p>
      ) : confirm.done ? (
        <Notice>{t.emailConfirmedNow}</Notice>
      ) : confirm.error ? (
        <ErrorMessage error={confirm.error} />
      ) : (
        <Loading />
      )}
      {(confirm.done || confirm.error !== null || token === null) && (
        <p>
          <Link href="/">{t.toDashboard}</Link>
        </p>
      )}
    </>
  );
}
