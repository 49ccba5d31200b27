import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { call, client } from '../api';
import { Badge, DateTime, ErrorMessage, Loading, PageTitle, TableRegion } from '../components/common';
import { SecretReveal } from '../components/copy';
import { ConfirmDialog, ShownBesideField } from '../components/dialog';
import { described, Field, ModeChoice, placeApiError } from '../components/forms';
import { useLoad } from '../hooks';
import { useI18n } from '../i18n';
import { useMode, type Mode } from '../mode';
import type { ApiKeyView, ApiKeyWithSecret } from '../types';

const stateOf = (k: ApiKeyView, now: number): 'active' | 'expiring' | 'expired' | 'revoked' => {
  if (k.revoked_at) return 'revoked';
  if (k.expires_at) return new Date(k.expires_at).getTime() <= now ? 'expired' : 'expiring';
  return 'active';
};

export function ApiKeysPage() {
  const { t } = useI18n();
  const keys = useLoad(() => call(client.GET('/api/v1/api-keys')), 'keys');
  const [revealed, setRevealed] = useState<{ title: string; key: ApiKeyWithSecret } | null>(null);
  const [reissuing, setReissuing] = useState<ApiKeyView | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyView | null>(null);
  const now = Date.now();

  const revoke = async () => {
    if (!revoking) return;
    await call(client.POST('/api/v1/api-keys/{id}/revoke', { params: { path: { id: revoking.id } }, body: {} }));
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
      {keys.loading && <Loading />}
      <ErrorMessage error={keys.error} onRetry={keys.reload} />
      {keys.data && !keys.loading && keys.data.api_keys.length === 0 && <p>{t.apiKeysEmpty}</p>}
      {keys.data && !keys.loading && keys.data.api_keys.length > 0 && (
        <TableRegion label={t.apiKeysTitle}>
          <table data-testid="keys-table">
            <thead>
              <tr>
                <th scope="col">{t.label}</th>
                <th scope="col">{t.publicKey}</th>
                <th scope="col">{t.mode}</th>
                <th scope="col">{t.status}</th>
                <th scope="col">{t.created}</th>
                <th scope="col">{t.lastUsed}</th>
                <th scope="col">{t.expires}</th>
                <th scope="col">{t.actions}</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.api_keys.map((k) => {
                const state = stateOf(k, now);
                const live = state === 'active' || state === 'expiring';
                return (
                  <tr key={k.id}>
                    <td>{k.label ?? t.none}</td>
                    <td class="mono">{k.public_key}</td>
                    <td>
                      <Badge kind={`mode-${k.mode}`}>{t.modes[k.mode] ?? k.mode}</Badge>
                    </td>
                    <td>
                      <Badge kind={state}>{t.apiKeyState[state]}</Badge>
                    </td>
                    <td>
                      <DateTime value={k.created_at} />
                    </td>
                    <td>
                      <DateTime value={k.last_used_at} />
                    </td>
                    <td>
                      <DateTime value={k.revoked_at ?? k.expires_at} />
                    </td>
                    <td class="row-actions">
                      {live && (
                        <>
                          <button type="button" onClick={() => setReissuing(k)} aria-label={`${t.reissue}: ${k.label ?? k.public_key}`}>
                            {t.reissue}
                          </button>
                          <button type="button" class="danger" onClick={() => setRevoking(k)} aria-label={`${t.revoke}: ${k.label ?? k.public_key}`}>
                            {t.revoke}
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableRegion>
      )}
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
  const [formError, setFormError] = useState<unknown>(null);
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<LabelForm>({ defaultValues: { label: '' } });
  const onValid = async (v: LabelForm) => {
    setFormError(null);
    try {
      const key = await call(client.POST('/api/v1/api-keys', { body: { ...(v.label.trim() ? { label: v.label.trim() } : {}), mode } }));
      reset();
      onCreated(key);
    } catch (e) {
      setFormError(placeApiError(e, t, setError, ['label']));
    }
  };
  return (
    <form class="card inline-form" aria-labelledby="new-key-title" onSubmit={(e) => void handleSubmit(onValid)(e)} noValidate>
      <h2 id="new-key-title">{t.newApiKey}</h2>
      <Field id="key-label" label={t.label} error={errors.label}>
        <input
          id="key-label"
          autocomplete="off"
          {...described('key-label', false, errors.label)}
          {...register('label', { maxLength: { value: 100, message: t.tooLong(100) } })}
        />
      </Field>
      <ModeChoice name="key-mode" legend={t.mode} hint={t.apiKeyModeHint} value={mode} onChange={setMode} t={t} />
      <ErrorMessage error={formError} />
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
      onReissued(
        await call(
          client.POST('/api/v1/api-keys/{id}/reissue', {
            params: { path: { id: apiKey.id } },
            body: { grace_minutes: Number(getValues('grace_minutes')) },
          }),
        ),
      );
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
