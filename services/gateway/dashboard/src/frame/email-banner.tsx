import { resendConfirmation } from '../api/sign-up';
import { useI18n } from '../i18n';
import { ErrorMessage } from '../kit/common';
import { useAction } from '../kit/use-load';
import { useSession } from '../session';

/** Over every page while the user's email is unconfirmed: what that holds back, and the confirmation mail again. */
export function EmailBanner() {
  const { t } = useI18n();
  const { me } = useSession();
  const resend = useAction(resendConfirmation);
  if (me.email_confirmed) return null;
  return (
    <div class="banner email-banner" data-testid="email-banner">
      <p>{t.emailNotConfirmed}</p>
      <div class="actions">
        <button type="button" onClick={() => resend.run()} disabled={resend.busy}>
          {t.resendConfirmation}
        </button>
      </div>
      {resend.done && <p role="status">{t.confirmationResent}</p>}
      <ErrorMessage error={resend.error} />
    </div>
  );
}
