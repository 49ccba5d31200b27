import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { ApiError, call, client } from '../api';
import { ErrorMessage, PageTitle } from '../components/common';
import { described, Field, placeApiError } from '../components/forms';
import { useI18n } from '../i18n';

interface LoginForm {
  email: string;
  password: string;
}

/** Posts the credentials; the server sets the HttpOnly session cookie, so nothing is kept here. */
export function LoginPage({ onSignedIn }: { onSignedIn: () => void }) {
  const { t } = useI18n();
  const [formError, setFormError] = useState<unknown>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<LoginForm>();
  const onValid = async (values: LoginForm) => {
    setFormError(null);
    try {
      await call(client.POST('/api/v1/auth/login', { body: values }));
      onSignedIn();
    } catch (e) {
      setFormError(
        e instanceof ApiError && e.status === 401
          ? new ApiError(401, 'common.err.unauthorized', e.message)
          : placeApiError(e, t, setError, ['email', 'password']),
      );
    }
  };
  return (
    <>
      <PageTitle title={t.signInTitle}>{t.signInTitle}</PageTitle>
      <form class="card" onSubmit={(e) => void handleSubmit(onValid)(e)} noValidate>
        <Field id="email" label={t.email} error={errors.email}>
          <input
            id="email"
            type="email"
            autocomplete="username"
            {...described('email', false, errors.email)}
            {...register('email', { required: t.required })}
          />
        </Field>
        <Field id="password" label={t.password} error={errors.password}>
          <input
            id="password"
            type="password"
            autocomplete="current-password"
            {...described('password', false, errors.password)}
            {...register('password', { required: t.required })}
          />
        </Field>
        <ErrorMessage error={formError} />
        <button type="submit" class="primary" disabled={isSubmitting}>
          {isSubmitting ? t.signingIn : t.signIn}
        </button>
      </form>
    </>
  );
}
