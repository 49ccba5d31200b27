import type { TotpEnrollment } from '@pl/contracts';
import { useState } from 'preact/hooks';
import { confirmTotp, disableTotp, regenerateRecoveryCodes, startTotp } from '../api/two-factor';
import { useI18n } from '../i18n';
import { ApiError } from '../api/client';
import { ErrorMessage } from '../kit/common';
import { CopyField } from '../kit/copy';
import { ConfirmDialog } from '../kit/dialog';
import { TextField, useApiForm } from '../kit/forms';
import { useAction } from '../kit/use-load';
import { useSession } from '../session';

/**
 * The user's TOTP and recovery codes (docs/adr/0028): turning TOTP on (scan the QR or type the secret, confirm with a
 * code, keep the recovery codes shown once), turning it off, and a new set of recovery codes. Turning off and new
 * codes need step-up, which the API layer asks for by itself.
 */
export function TwoFactorSection() {
  const { t } = useI18n();
  const words = t.security;
  const { me, refreshMe } = useSession();
  const [enrollment, setEnrollment] = useState<TotpEnrollment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [turningOff, setTurningOff] = useState(false);
  const [regenerating, setRegenerating] = useState(false);
  const start = useAction(async () => setEnrollment(await startTotp()));
  const { totp, recovery_codes_left: left } = me.two_factor;
  if (codes)
    return (
      <section class="card" aria-labelledby="totp-title" data-testid="two-factor">
        <h2 id="totp-title">{words.totpTitle}</h2>
        <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
      </section>
    );
  return (
    <section class="card" aria-labelledby="totp-title" data-testid="two-factor">
      <h2 id="totp-title">{words.totpTitle}</h2>
      <p data-testid="totp-state">{totp ? words.totpOn : words.totpOff}</p>
      {!totp && !enrollment && (
        <>
          <p>{words.totpIntro}</p>
          <div class="actions">
            <button type="button" class="primary" onClick={() => start.run()} disabled={start.busy}>
              {words.totpTurnOn}
            </button>
          </div>
          <ErrorMessage error={start.error} />
        </>
      )}
      {!totp && enrollment && (
        <ConfirmEnrollment
          enrollment={enrollment}
          onConfirmed={(recovery) => {
            setEnrollment(null);
            setCodes(recovery);
            void refreshMe();
          }}
        />
      )}
      {totp && (
        <div class="actions">
          <button type="button" class="danger" onClick={() => setTurningOff(true)}>
            {words.totpTurnOff}
          </button>
        </div>
      )}
      {(totp || me.two_factor.passkeys > 0) && (
        <>
          <h3>{words.recoveryTitle}</h3>
          <p data-testid="recovery-left">{words.recoveryLeft(left)}</p>
          <div class="actions">
            <button type="button" onClick={() => setRegenerating(true)}>
              {words.recoveryNew}
            </button>
          </div>
        </>
      )}
      {turningOff && (
        <ConfirmDialog
          title={words.totpTurnOffTitle}
          body={words.totpTurnOffConfirm}
          confirmLabel={words.totpTurnOffYes}
          danger
          onConfirm={async () => {
            await disableTotp();
            setTurningOff(false);
            await refreshMe();
          }}
          onClose={() => setTurningOff(false)}
        />
      )}
      {regenerating && (
        <ConfirmDialog
          title={words.recoveryNewTitle}
          body={words.recoveryNewConfirm}
          confirmLabel={words.recoveryNewYes}
          onConfirm={async () => {
            const made = await regenerateRecoveryCodes();
            setRegenerating(false);
            setCodes(made.recovery_codes);
            await refreshMe();
          }}
          onClose={() => setRegenerating(false)}
        />
      )}
    </section>
  );
}

interface CodeForm {
  code: string;
}

function ConfirmEnrollment({ enrollment, onConfirmed }: { enrollment: TotpEnrollment; onConfirmed: (codes: string[]) => void }) {
  const { t } = useI18n();
  const words = t.security;
  const form = useApiForm<CodeForm>({ code: '' }, ['code'], async (v, { setError }) => {
    try {
      onConfirmed((await confirmTotp(v.code.replace(/\s/g, ''))).recovery_codes);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'auth.err.invalid_code')) throw e;
      setError('code', { type: 'server', message: t.secondStep.wrongCode }, { shouldFocus: true });
    }
  });
  const { errors, isSubmitting } = form.formState;
  return (
    <form onSubmit={form.onSubmit} noValidate aria-labelledby="totp-scan-title">
      <h3 id="totp-scan-title">{words.totpScan}</h3>
      {/* The server draws the QR of the otpauth URI (an SVG in a data: URL, which the CSP's img-src allows). */}
      <img class="qr" src={enrollment.qr_data_url} alt={words.totpQrLabel} width={200} height={200} data-testid="totp-qr" />
      <CopyField id="totp-secret" label={words.totpSecret} value={enrollment.secret} />
      <TextField
        id="totp-code"
        label={t.secondStep.code}
        hint={words.totpCodeHint}
        inputMode="numeric"
        autocomplete="one-time-code"
        error={errors.code}
        field={form.register('code', { validate: (v) => /^[0-9]{6}$/.test(v.replace(/\s/g, '')) || t.stepUp.codeFormat })}
      />
      <ErrorMessage error={form.formError} />
      <div class="actions">
        <button type="submit" class="primary" disabled={isSubmitting} aria-busy={isSubmitting}>
          {words.totpConfirm}
        </button>
      </div>
    </form>
  );
}

/** The recovery codes, shown once: to copy all at once or to save as a text file. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useI18n();
  const words = t.security;
  const text = `${codes.join('\n')}\n`;
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  };
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'recovery-codes.txt';
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <div class="secret" data-testid="recovery-codes">
      <h3>{words.recoveryShownTitle}</h3>
      <p class="warning" role="alert">
        {words.recoveryShownWarning}
      </p>
      <ol class="recovery-codes mono" aria-label={words.recoveryTitle}>
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ol>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          {words.recoveryCopy}
        </button>
        <button type="button" onClick={download}>
          {words.recoveryDownload}
        </button>
        <button type="button" class="primary" onClick={onDone}>
          {words.recoverySaved}
        </button>
      </div>
      <p role="status">{copied === 'copied' ? t.copied : copied === 'failed' ? t.copyFailed : ''}</p>
    </div>
  );
}
