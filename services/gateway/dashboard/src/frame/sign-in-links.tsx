import { Link } from 'wouter-preact';
import { useI18n } from '../i18n';

/** Under the sign-in form: the way to a new password and to a new account. */
export function SignInLinks() {
  const { t } = useI18n();
  return (
    <div class="sign-in-links">
      <p>
        <Link href="/forgot-password">{t.forgotPasswordLink}</Link>
      </p>
      <p>
        {t.signUpOffer} <Link href="/signup">{t.signUpLink}</Link>
      </p>
    </div>
  );
}
