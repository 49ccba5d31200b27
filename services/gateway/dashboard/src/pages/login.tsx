import { browserSupportsWebAuthn, startAuthentication } from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import { signIn, signInSecondFactor, type SecondStep } from '../api/account';
import { ApiError } from '../api/client';
import { loginPasskeyOptions, signInWithPasskey } from '../api/passkeys';
import { useI18n } from '../i18n';
import { ErrorMessage, PageTitle } from '../kit/common';
import { TextField, useApiForm } from '../kit/forms';
import { useAction } from '../kit/use-load';

interface LoginForm {
  email: string;
  password: string;
}

/**
 * Posts the credentials; the server sets the HttpOnly session cookie, so nothing is kept here. A user with a second
 * factor gets no session from the password: the second step answers the server's challenge first.
 */
export function LoginPage({ onSignedIn }: { onSignedIn: () => void }) {
  const { t } = useI18n();
  const [step, setStep] = useState<SecondStep>(null);
  const form = useApiForm<LoginForm>({ email: '', password: '' }, ['email', 'password'], async (values) => {
    let next: SecondStep;
    try {
      next = await signIn(values);
    } catch (e) {
      // In our words: the server's says the same of a wrong email and a wrong password, on purpose.
      throw e instanceof ApiError && e.status === 401 ? new ApiError(401, 'common.err.unauthorized', e.message) : e;
    }
    if (next) setStep(next);
    else onSignedIn();
  });
  if (step) return <SecondFactorStep step={step} onSignedIn={onSignedIn} onStartOver={() => setStep(null)} />;
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

interface CodeForm {
  code: string;
}

/** Sign-in's second step: a passkey through the browser, or a TOTP code or recovery code typed in. */
function SecondFactorStep({ step, onSignedIn, onStartOver }: { step: NonNullable<SecondStep>; onSignedIn: () => void; onStartOver: () => void }) {
  const { t } = useI18n();
  const words = t.secondStep;
  const [browserRefused, setBrowserRefused] = useState(false);
  const passkey = useAction(async () => {
    setBrowserRefused(false);
    const optionsJSON = await loginPasskeyOptions(step.challenge);
    let assertion;
    try {
      assertion = await startAuthentication({ optionsJSON });
    } catch (e) {
      // The user closed the browser's prompt, it timed out, or no passkey of theirs is on this device.
      if (e instanceof ApiError) throw e;
      setBrowserRefused(true);
      return;
    }
    await signInWithPasskey(step.challenge, assertion);
    onSignedIn();
  });
  const form = useApiForm<CodeForm>({ code: '' }, ['code'], async ({ code }) => {
    const typed = code.trim();
    // Six digits are a TOTP code; anything else is taken for a recovery code (the server forgives case and dashes).
    await signInSecondFactor(
      /^[0-9]{6}$/.test(typed) ? { challenge: step.challenge, code: typed } : { challenge: step.challenge, recovery_code: typed },
    );
    onSignedIn();
  });
  const typesCode = step.methods.includes('totp') || step.methods.includes('recovery_code');
  const { errors, isSubmitting } = form.formState;
  return (
    <>
      <PageTitle title={words.title}>{words.title}</PageTitle>
      <section class="card" aria-labelledby="second-step-intro" data-testid="second-step">
        <p id="second-step-intro">{words.intro}</p>
        {step.methods.includes('passkey') && browserSupportsWebAuthn() && (
          <div class="actions">
            <button type="button" class="primary" onClick={() => passkey.run()} disabled={passkey.busy} aria-busy={passkey.busy}>
              {words.usePasskey}
            </button>
          </div>
        )}
        <ErrorMessage error={passkey.error} />
        {browserRefused && (
          <div class="error" role="alert">
            <span>{words.passkeyCancelled}</span>
          </div>
        )}
        {typesCode && (
          <form onSubmit={form.onSubmit} noValidate>
            <TextField
              id="code"
              label={words.code}
              hint={words.codeHint}
              autocomplete="one-time-code"
              error={errors.code}
              field={form.register('code', { validate: (v) => v.trim() !== '' || t.required })}
            />
            <ErrorMessage error={form.formError} />
            <button type="submit" class="primary" disabled={isSubmitting}>
              {words.verify}
            </button>
          </form>
        )}
        <div class="actions">
          <button type="button" class="link-button" onClick={onStartOver}>
            {words.startOver}
          </button>
        </div>
      </section>
    </>
  );
}
