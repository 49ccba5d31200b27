import { browserSupportsWebAuthn, startAuthentication } from '@simplewebauthn/browser';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, setStepUpHandler } from '../api/client';
import { stepUp, stepUpPasskeyOptions } from '../api/two-factor';
import { useI18n } from '../i18n';
import { ErrorMessage } from '../kit/common';
import { useModal } from '../kit/dialog';
import { described, Field } from '../kit/forms';
import { useSession } from '../session';

/**
 * The step-up prompt of every signed-in page (docs/adr/0028): when an action answers 403 `auth.err.step_up_required`,
 * the API layer (api/client.ts) waits on this dialog; a code or a passkey verified here lets it repeat the action once.
 * Cancelling hands the refusal back to the page.
 */
export function StepUpPrompt() {
  const [pending, setPending] = useState<((ok: boolean) => void) | null>(null);
  useEffect(() => {
    setStepUpHandler(() => new Promise<boolean>((resolve) => setPending(() => resolve)));
    return () => setStepUpHandler(null);
  }, []);
  if (!pending) return null;
  const finish = (ok: boolean) => {
    setPending(null);
    pending(ok);
  };
  return <StepUpDialog onDone={() => finish(true)} onCancel={() => finish(false)} />;
}

const CODE = /^[0-9]{6}$/;

function StepUpDialog({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const { t } = useI18n();
  const words = t.stepUp;
  const { me } = useSession();
  const ref = useModal();
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const verify = async (prove: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await prove();
      onDone();
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  const withCode = (e: Event) => {
    e.preventDefault();
    const typed = code.replace(/\s/g, '');
    if (!CODE.test(typed)) {
      setCodeError(words.codeFormat);
      return;
    }
    setCodeError(null);
    void verify(() => stepUp({ code: typed }));
  };
  const withPasskey = () =>
    void verify(async () => {
      const optionsJSON = await stepUpPasskeyOptions();
      let passkey;
      try {
        passkey = await startAuthentication({ optionsJSON });
      } catch (e) {
        if (e instanceof ApiError) throw e;
        throw new ApiError(0, 'dashboard.passkey_cancelled', words.passkeyCancelled);
      }
      await stepUp({ passkey });
    });
  const fieldError = codeError === null ? undefined : { type: 'format', message: codeError };
  return (
    <dialog
      ref={ref}
      aria-labelledby="step-up-title"
      aria-describedby="step-up-body"
      data-testid="step-up"
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <form onSubmit={withCode} noValidate>
        <h2 id="step-up-title">{words.title}</h2>
        <p id="step-up-body">{words.body}</p>
        {me.two_factor.totp && (
          <Field id="step-up-code" label={words.code} hint={words.codeHint} error={fieldError}>
            <input
              id="step-up-code"
              inputMode="numeric"
              autocomplete="one-time-code"
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
              {...described('step-up-code', true, fieldError)}
            />
          </Field>
        )}
        <ErrorMessage error={error} />
        <div class="actions">
          <button type="button" onClick={onCancel} disabled={busy}>
            {t.cancel}
          </button>
          {me.two_factor.passkeys > 0 && browserSupportsWebAuthn() && (
            <button type="button" onClick={withPasskey} disabled={busy}>
              {words.usePasskey}
            </button>
          )}
          {me.two_factor.totp && (
            <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
              {words.verify}
            </button>
          )}
        </div>
      </form>
    </dialog>
  );
}
