import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { ApiError } from '../api/client';
import { signUp } from '../api/sign-up';
import { useI18n } from '../i18n';
import { ErrorMessage, Notice, PageTitle } from '../kit/common';
import { newPasswordRules } from '../kit/credentials';
import { TextField, useApiForm } from '../kit/forms';

interface SignUpForm {
  email: string;
  password: string;
  account_name: string;
}

/**
 * Opens an account: the server answers 202 alike for a new email and a known one (the mail says which), so the page
 * only ever says where to look next. The mail is written in the page's language.
 */
export function SignUpPage() {
  const { t, lang } = useI18n();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [closed, setClosed] = useState(false);
  const form = useApiForm<SignUpForm>({ email: '', password: '', account_name: '' }, ['email', 'password', 'account_name'], async (v) => {
    try {
      await signUp({ email: v.email.trim(), password: v.password, account_name: v.account_name.trim(), language: lang });
    } catch (e) {
      // 403 here means one thing: this deployment lets no one sign up (SIGNUP_ENABLED=false).
      if (!(e instanceof ApiError && e.code === 'common.err.forbidden')) throw e;
      setClosed(true);
      return;
    }
    setSentTo(v.email.trim());
  });
  const { errors, isSubmitting } = form.formState;
  return (
    <>
      <PageTitle title={t.signUpTitle}>{t.signUpTitle}</PageTitle>
      {sentTo !== null ? (
        <Notice>{t.signUpSent(sentTo)}</Notice>
      ) : (
        <form class="card" onSubmit={form.onSubmit} noValidate>
          <TextField
            id="email"
            label={t.email}
            type="email"
            autocomplete="email"
            error={errors.email}
            field={form.register('email', { required: t.required })}
          />
          <TextField
            id="password"
            label={t.password}
            type="password"
            autocomplete="new-password"
            hint={t.choosePasswordHint}
            error={errors.password}
            field={form.register('password', newPasswordRules(t))}
          />
          <TextField
            id="account_name"
            label={t.accountName}
            autocomplete="organization"
            hint={t.accountNameHint}
            error={errors.account_name}
            field={form.register('account_name', {
              required: t.required,
              validate: (v) => v.trim() !== '' || t.required,
              maxLength: { value: 100, message: t.tooLong(100) },
            })}
          />
          <ErrorMessage error={form.formError} />
          {closed && (
            <p class="error" role="alert">
              {t.signUpClosed}
            </p>
          )}
          <button type="submit" class="primary" disabled={isSubmitting}>
            {isSubmitting ? t.signingUp : t.signUp}
          </button>
        </form>
      )}
      <p>
        {t.haveAccount} <Link href="/login">{t.toSignIn}</Link>
      </p>
    </>
  );
}
