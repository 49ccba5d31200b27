import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { createApiKey, listApiKeys, reissueApiKey, revokeApiKey } from '../api/account';
import { useI18n } from '../i18n';
import { Badge, DateTime, ErrorMessage, PageTitle } from '../kit/common';
import { SecretReveal } from '../kit/copy';
import { DataTable } from '../kit/data-table';
import { ConfirmDialog, ShownBesideField } from '../kit/dialog';
import { described, Field, ModeChoice, placeApiError, TextField, useApiForm } from '../kit/forms';
import { useLoad } from '../kit/use-load';
import { useMode, type Mode } from '../mode';
import type { ApiKeyView, ApiKeyWithSecret } from '../types';

const stateOf = (k: ApiKeyView, now: number): 'active' | 'expiring' | 'expired' | 'revoked' => {
  if (k.revoked_at) return 'revoked';
  if (k.expires_at) return new Date(k.expires_at).getTime() <= now ? 'expired' : 'expiring';
  return 'active';
};

export function ApiKeysPage() {
  const { t } = useI18n();
  const keys = useLoad(listApiKeys, 'keys');
  const [revealed, setRevealed] = useState<{ title: string; key: ApiKeyWithSecret } | null>(null);
  const [reissuing, setReissuing] = useState<ApiKeyView | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyView | null>(null);
  const now = Date.now();

  const revoke = async () => {
    if (!revoking) return;
    await revokeApiKey(revoking.id);
    setRevoking(null);
    keys.reload();
  };

  return (
    <>
      <PageTitle title={t.apiKeysTitle}>{t.apiKeysTitle}</PageTitle>
      {revealed ? (
        <SecretReveal
          title={revealed.title}
          secrets={[
            { id: 'public-key', label: t.publicKey, value: revealed.key.public_key },
            { id: 'api-secret', label: t.apiSecret, value: revealed.key.api_secret },
          ]}
          onDone={() => setRevealed(null)}
        />
      ) : (
        <CreateKey
          onCreated={(key) => {
            setRevealed({ title: t.keyCreated, key });
            keys.reload();
          }}
        />
      )}
      <DataTable
        label={t.apiKeysTitle}
        testId="keys-table"
        load={keys}
        items={(list) => list.api_keys}
        empty={t.apiKeysEmpty}
        rowKey={(k) => k.id}
        columns={[
          { header: t.label, cell: (k) => k.label ?? t.none },
          { header: t.publicKey, cell: (k) => <span class="mono">{k.public_key}</span> },
          { header: t.mode, cell: (k) => <Badge kind={`mode-${k.mode}`}>{t.modes[k.mode]}</Badge> },
          {
            header: t.status,
            cell: (k) => {
              const state = stateOf(k, now);
              return <Badge kind={state}>{t.apiKeyState[state]}</Badge>;
            },
          },
          { header: t.created, cell: (k) => <DateTime value={k.created_at} /> },
          { header: t.lastUsed, cell: (k) => <DateTime value={k.last_used_at} /> },
          { header: t.expires, cell: (k) => <DateTime value={k.revoked_at ?? k.expires_at} /> },
          {
            header: t.actions,
            cell: (k) =>
              (stateOf(k, now) === 'active' || stateOf(k, now) === 'expiring') && (
                <span class="row-actions">
                  <button type="button" onClick={() => setReissuing(k)} aria-label={`${t.reissue}: ${k.label ?? k.public_key}`}>
                    {t.reissue}
                  </button>
                  <button type="button" class="danger" onClick={() => setRevoking(k)} aria-label={`${t.revoke}: ${k.label ?? k.public_key}`}>
                    {t.revoke}
                  </button>
                </span>
              ),
          },
        ]}
      />
      {reissuing && (
        <ReissueDialog
          apiKey={reissuing}
          onClose={() => setReissuing(null)}
          onReissued={(key) => {
            setReissuing(null);
            setRevealed({ title: t.keyReissued, key });
            keys.reload();
          }}
        />
      )}
      {revoking && (
        <ConfirmDialog
          title={t.revokeKeyTitle}
          body={t.revokeKeyConfirm}
          confirmLabel={t.revokeYes}
          danger
          onConfirm={revoke}
          onClose={() => setRevoking(null)}
        />
      )}
    </>
  );
}

interface LabelForm {
  label: string;
}

function CreateKey({ onCreated }: { onCreated: (k: ApiKeyWithSecret) => void }) {
  const { t } = useI18n();
  // A merchant working in test mode most likely wants a test key; the choice is in plain sight either way.
  const [mode, setMode] = useState<Mode>(useMode().mode);
  const form = useApiForm<LabelForm>({ label: '' }, ['label'], async (v, { reset }) => {
    const key = await createApiKey({ ...(v.label.trim() ? { label: v.label.trim() } : {}), mode });
    reset();
    onCreated(key);
  });
  const { errors, isSubmitting } = form.formState;
  return (
    <form class="card inline-form" aria-labelledby="new-key-title" onSubmit={form.onSubmit} noValidate>
      <h2 id="new-key-title">{t.newApiKey}</h2>
      <TextField
        id="key-label"
        label={t.label}
        error={errors.label}
        field={form.register('label', { maxLength: { value: 100, message: t.tooLong(100) } })}
      />
      <ModeChoice name="key-mode" legend={t.mode} hint={t.apiKeyModeHint} value={mode} onChange={setMode} t={t} />
      <ErrorMessage error={form.formError} />
      <button type="submit" class="primary" disabled={isSubmitting}>
        {isSubmitting ? t.creating : t.create}
      </button>
    </form>
  );
}

interface GraceForm {
  grace_minutes: string;
}

function ReissueDialog({ apiKey, onClose, onReissued }: { apiKey: ApiKeyView; onClose: () => void; onReissued: (k: ApiKeyWithSecret) => void }) {
  const { t } = useI18n();
  const {
    register,
    trigger,
    getValues,
    setError,
    formState: { errors },
  } = useForm<GraceForm>({ defaultValues: { grace_minutes: '0' } });
  const reissue = async () => {
    if (!(await trigger())) throw new ShownBesideField();
    try {
      onReissued(await reissueApiKey(apiKey.id, Number(getValues('grace_minutes'))));
    } catch (e) {
      const left = placeApiError(e, t, setError, ['grace_minutes']);
      if (left instanceof Error) throw left;
      throw new ShownBesideField();
    }
  };
  return (
    <ConfirmDialog title={t.reissueKeyTitle} body={t.reissueKeyConfirm} confirmLabel={t.reissueYes} onConfirm={reissue} onClose={onClose}>
      <Field id="grace_minutes" label={t.graceMinutes} hint={t.graceHint} error={errors.grace_minutes}>
        <input
          id="grace_minutes"
          inputMode="numeric"
          {...described('grace_minutes', true, errors.grace_minutes)}
          {...register('grace_minutes', { validate: (v) => (/^\d{1,5}$/.test(v.trim()) && Number(v) <= 10_080) || t.badInteger(0, 10_080) })}
        />
      </Field>
    </ConfirmDialog>
  );
}
