import { signIn } from '../api/account';
import { ApiError } from '../api/client';
import { useI18n } from '../i18n';
import { ErrorMessage, PageTitle } from '../kit/common';
import { TextField, useApiForm } from '../kit/forms';

interface LoginForm {
  email: string;
  password: string;
}

/** Posts the credentials; the server sets the HttpOnly session cookie, so nothing is kept here. */
export function LoginPage({ onSignedIn }: { onSignedIn: () => void }) {
  const { t } = useI18n();
  const form = useApiForm<LoginForm>({ email: '', password: '' }, ['email', 'password'], async (values) => {
    try {
      await signIn(values);
    } catch (e) {
      // In our words: the server's says the same of a wrong email and a wrong password, on purpose.
      throw e instanceof ApiError && e.status === 401 ? new ApiError(401, 'common.err.unauthorized', e.message) : e;
    }
    onSignedIn();
  });
  const { errors, isSubmitting } = form.formState;
  return (
    <>
      <PageTitle title={t.signInTitle}>{t.signInTitle}</PageTitle>
      <form class="card" onSubmit={form.onSubmit} noValidate>
        <TextField
          id="email"
          label={t.email}
          type="email"
          autocomplete="username"
          error={errors.email}
          field={form.register('email', { required: t.required })}
        />
        <TextField
          id="password"
          label={t.password}
          type="password"
          autocomplete="current-password"
          error={errors.password}
          field={form.register('password', { required: t.required })}
        />
        <ErrorMessage error={form.formError} />
        <button type="submit" class="primary" disabled={isSubmitting}>
          {isSubmitting ? t.signingIn : t.signIn}
        </button>
      </form>
    </>
  );
}
