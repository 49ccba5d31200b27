import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { ApiError } from '../api/client';
import { resetPassword } from '../api/sign-up';
import { useI18n } from '../i18n';
import { ErrorMessage, Notice, PageTitle } from '../kit/common';
import { newPasswordRules, useMailedToken } from '../kit/credentials';
import { TextField, useApiForm } from '../kit/forms';

interface ResetForm {
  new_password: string;
  repeat: string;
}

/**
 * Where the reset mail's link lands (`/dashboard/reset-password?token=`): a new password, twice. The server ends every
 * session of the user, so the page sends them to sign in; a dead link offers a new one.
 */
export function ResetPasswordPage() {
  const { t } = useI18n();
  const token = useMailedToken();
  const [done, setDone] = useState(false);
  const form = useApiForm<ResetForm>({ new_password: '', repeat: '' }, ['new_password'], async (v) => {
    await resetPassword({ token: token ?? '', new_password: v.new_password });
    setDone(true);
  });
  const { errors, isSubmitting } = form.formState;
  const deadLink = token === null || (form.formError instanceof ApiError && form.formError.code === 'auth.err.invalid_token');
  return (
    <>
      <PageTitle title={t.resetTitle}>{t.resetTitle}</PageTitle>
      {token === null && <p class="banner">{t.linkWithoutToken}</p>}
      {done ? (
        <>
          <Notice>{t.passwordResetDone}</Notice>
          <p>
            <Link href="/login">{t.toSignIn}</Link>
          </p>
        </>
      ) : (
        token !== null && (
          <form class="card" onSubmit={form.onSubmit} noValidate>
            <TextField
              id="new_password"
              label={t.newPassword}
              type="password"
              autocomplete="new-password"
              hint={t.choosePasswordHint}
              error={errors.new_password}
              field={form.register('new_password', newPasswordRules(t))}
            />
            <TextField
              id="repeat"
              label={t.repeatPassword}
              type="password"
              autocomplete="new-password"
              error={errors.repeat}
              field={form.register('repeat', { validate: (v, all) => v === all.new_password || t.passwordsDiffer })}
            />
            <ErrorMessage error={form.formError} />
            <button type="submit" class="primary" disabled={isSubmitting}>
              {t.setNewPassword}
            </button>
          </form>
        )
      )}
      {deadLink && !done && (
        <p>
          <Link href="/forgot-password">{t.requestNewLink}</Link>
        </p>
      )}
    </>
  );
}
