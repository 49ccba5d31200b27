import { browserSupportsWebAuthn, startAuthentication } from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import { signIn } from '../api/account';
import { ApiError } from '../api/client';
import { answerSecondStep, loginPasskeyOptions, type LoginChallenge, type SecondFactorProof } from '../api/two-factor';
import { useI18n } from '../i18n';
import { ErrorMessage, Notice, PageTitle } from '../kit/common';
import { TextField, useApiForm } from '../kit/forms';

interface LoginForm {
  email: string;
  password: string;
}

/**
 * Posts the credentials; the server sets the HttpOnly session cookie, so nothing is kept here. A user with a second
 * factor gets a challenge instead, answered by the second step below (docs/adr/0028).
 */
export function LoginPage({ onSignedIn }: { onSignedIn: () => void }) {
  const { t } = useI18n();
  const [challenge, setChallenge] = useState<LoginChallenge | null>(null);
  /** Why the second step sent the user back here (its challenge ran out). */
  const [restarted, setRestarted] = useState(false);
  const form = useApiForm<LoginForm>({ email: '', password: '' }, ['email', 'password'], async (values) => {
    setRestarted(false);
    let second: LoginChallenge | null;
    try {
      second = await signIn(values);
    } catch (e) {
      // In our words: the server's says the same of a wrong email and a wrong password, on purpose.
      throw e instanceof ApiError && e.status === 401 ? new ApiError(401, 'common.err.unauthorized', e.message) : e;
    }
    if (second) setChallenge(second);
    else onSignedIn();
  });
  if (challenge)
    return (
      <SecondStep
        challenge={challenge}
        onSignedIn={onSignedIn}
        onExpired={() => {
          setChallenge(null);
          form.setValue('password', '');
          setRestarted(true);
        }}
      />
    );
  const { errors, isSubmitting } = form.formState;
  return (
    <>
      <PageTitle title={t.signInTitle}>{t.signInTitle}</PageTitle>
      <form class="card" onSubmit={form.onSubmit} noValidate>
        {restarted && <Notice>{t.secondStep.expired}</Notice>}
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

/**
 * Sign-in's second step: a code from the authenticator app, or one recovery code, or a passkey. A wrong code shows
 * beside the field; the spent budget (429) says when to try again; a challenge that ran out (5 minutes, 5 tries)
 * sends the user back to the password.
 */
function SecondStep({ challenge, onSignedIn, onExpired }: { challenge: LoginChallenge; onSignedIn: () => void; onExpired: () => void }) {
  const { t } = useI18n();
  const words = t.secondStep;
  const offers = challenge.methods;
  const [method, setMethod] = useState<'totp' | 'recovery_code' | null>(
    offers.includes('totp') ? 'totp' : offers.includes('recovery_code') ? 'recovery_code' : null,
  );
  const [passkeyError, setPasskeyError] = useState<unknown>(null);
  const [passkeyBusy, setPasskeyBusy] = useState(false);
  const answer = async (proof: SecondFactorProof): Promise<'done' | 'wrong'> => {
    try {
      await answerSecondStep(challenge.challenge, proof);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'auth.err.invalid_token') {
        onExpired();
        return 'done';
      }
      if (e instanceof ApiError && e.code === 'auth.err.invalid_code') return 'wrong';
      if (e instanceof ApiError && e.status === 429) throw new ApiError(429, e.code, words.lockedOut(e.retryAfterSeconds ?? 60));
      throw e;
    }
    onSignedIn();
    return 'done';
  };
  const form = useApiForm<CodeForm>({ code: '' }, ['code'], async (v, { setError, setValue }) => {
    if (method === null) return;
    const typed = v.code.trim();
    const outcome = await answer(method === 'totp' ? { code: typed.replace(/\s/g, '') } : { recovery_code: typed });
    if (outcome === 'wrong') {
      setValue('code', '');
      setError('code', { type: 'server', message: method === 'totp' ? words.wrongCode : words.wrongRecoveryCode }, { shouldFocus: true });
    }
  });
  const withPasskey = async () => {
    setPasskeyBusy(true);
    setPasskeyError(null);
    try {
      const optionsJSON = await loginPasskeyOptions(challenge.challenge);
      let passkey;
      try {
        passkey = await startAuthentication({ optionsJSON });
      } catch (e) {
        if (e instanceof ApiError) throw e;
        throw new ApiError(0, 'dashboard.passkey_cancelled', t.stepUp.passkeyCancelled);
      }
      if ((await answer({ passkey })) === 'wrong') throw new ApiError(400, 'auth.err.invalid_code', words.wrongPasskey);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'auth.err.invalid_token') onExpired();
      else setPasskeyError(e);
    }
    setPasskeyBusy(false);
  };
  const { errors, isSubmitting } = form.formState;
  const totp = method === 'totp';
  return (
    <>
      <PageTitle title={words.title}>{words.title}</PageTitle>
      <form class="card" onSubmit={form.onSubmit} noValidate data-testid="second-step">
        <p>{method === null ? words.passkeyIntro : totp ? words.totpIntro : words.recoveryIntro}</p>
        {method !== null && (
          <>
            <TextField
              key={method}
              id="second-factor-code"
              label={totp ? words.code : words.recoveryCode}
              hint={totp ? words.codeHint : words.recoveryCodeHint}
              inputMode={totp ? 'numeric' : 'text'}
              autocomplete={totp ? 'one-time-code' : 'off'}
              error={errors.code}
              field={form.register('code', {
                validate: (v) => {
                  const typed = v.trim();
                  if (typed === '') return t.required;
                  return !totp || /^[0-9]{6}$/.test(typed.replace(/\s/g, '')) || t.stepUp.codeFormat;
                },
              })}
            />
            <ErrorMessage error={form.formError} />
            <div class="actions">
              <button type="submit" class="primary" disabled={isSubmitting}>
                {isSubmitting ? t.signingIn : t.signIn}
              </button>
            </div>
          </>
        )}
        <div class="actions">
          {offers.includes('totp') && offers.includes('recovery_code') && (
            <button
              type="button"
              class="link-button"
              onClick={() => {
                form.clearErrors();
                form.setValue('code', '');
                setMethod(totp ? 'recovery_code' : 'totp');
              }}
            >
              {totp ? words.useRecoveryCode : words.useTotp}
            </button>
          )}
          {offers.includes('passkey') && browserSupportsWebAuthn() && (
            <button type="button" onClick={() => void withPasskey()} disabled={passkeyBusy} aria-busy={passkeyBusy}>
              {words.usePasskey}
            </button>
          )}
        </div>
        <ErrorMessage error={passkeyError} />
      </form>
    </>
  );
}
