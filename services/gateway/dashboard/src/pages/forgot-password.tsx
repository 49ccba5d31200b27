import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { requestPasswordReset } from '../api/sign-up';
import { useI18n } from '../i18n';
import { ErrorMessage, Notice, PageTitle } from '../kit/common';
import { TextField, useApiForm } from '../kit/forms';

/** Asks for a reset link; the answer is the same whether or not the email is known, and so is the page's. */
export function ForgotPasswordPage() {
  const { t } = useI18n();
  const [sent, setSent] = useState(false);
  const form = useApiForm<{ email: string }>({ email: '' }, ['email'], async (v) => {
    await requestPasswordReset(v.email.trim());
    setSent(true);
  });
  const { errors, isSubmitting } = form.formState;
  return (
    <>
      <PageTitle title={t.forgotTitle}>{t.forgotTitle}</PageTitle>
      {sent ? (
        <Notice>{t.resetSent}</Notice>
      ) : (
        <form class="card" onSubmit={form.onSubmit} noValidate>
          <p class="hint">{t.forgotHint}</p>
          <TextField
            id="email"
            label={t.email}
            type="email"
            autocomplete="username"
            error={errors.email}
            field={form.register('email', { required: t.required })}
          />
          <ErrorMessage error={form.formError} />
          <button type="submit" class="primary" disabled={isSubmitting}>
            {isSubmitting ? t.sendingResetLink : t.sendResetLink}
          </button>
        </form>
      )}
      <p>
        <Link href="/login">{t.toSignIn}</Link>
      </p>
    </>
  );
}
