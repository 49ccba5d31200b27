import { browserSupportsWebAuthn, startRegistration, WebAuthnError } from '@simplewebauthn/browser';
import type { PasskeyView } from '@pl/contracts';
import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { listPasskeys, passkeyRegistrationOptions, registerPasskey, removePasskey, renamePasskey } from '../api/passkeys';
import { ApiError } from '../api/client';
import { useI18n, type Messages } from '../i18n';
import { DateTime, ErrorMessage, Notice } from '../kit/common';
import { DataTable } from '../kit/data-table';
import { ConfirmDialog, ShownBesideField } from '../kit/dialog';
import { described, Field, placeApiError, TextField, useApiForm } from '../kit/forms';
import { useLoad } from '../kit/use-load';

/** The server's limit on a passkey's name, in code points (what it counts lengths in). */
const NAME_MAX = 64;

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

const nameRules = (t: Messages) => ({
  validate: (v: string) => {
    if (v.trim() === '') return t.required;
    return codePoints(v) <= NAME_MAX || t.tooLong(NAME_MAX);
  },
});

/**
 * The user's passkeys (docs/adr/0029-passkeys.md): the list, adding one through the browser's WebAuthn (any passkey
 * or security key it offers), renaming and removing. Passkeys are the user's own, so every role sees this.
 */
export function PasskeysSection() {
  const { t } = useI18n();
  const passkeys = useLoad(listPasskeys, 'passkeys');
  const [renaming, setRenaming] = useState<PasskeyView | null>(null);
  const [removing, setRemoving] = useState<PasskeyView | null>(null);
  const words = t.passkeys;
  return (
    <section class="card" aria-labelledby="passkeys-title" data-testid="passkeys">
      <h2 id="passkeys-title">{words.title}</h2>
      <p>{words.intro}</p>
      <DataTable
        label={words.title}
        testId="passkeys-table"
        load={passkeys}
        items={(list) => list.passkeys}
        empty={words.empty}
        rowKey={(p) => p.id}
        columns={[
          { header: words.name, cell: (p) => p.name },
          { header: words.created, cell: (p) => <DateTime value={p.created_at} /> },
          { header: words.lastUsed, cell: (p) => (p.last_used_at ? <DateTime value={p.last_used_at} /> : words.never) },
          {
            header: words.actions,
            cell: (p) => (
              <span class="row-actions">
                <button type="button" onClick={() => setRenaming(p)} aria-label={`${words.rename}: ${p.name}`}>
                  {words.rename}
                </button>
                <button type="button" class="danger" onClick={() => setRemoving(p)} aria-label={`${words.remove}: ${p.name}`}>
                  {words.remove}
                </button>
              </span>
            ),
          },
        ]}
      />
      {browserSupportsWebAuthn() ? <AddPasskey onAdded={passkeys.reload} /> : <Notice>{words.unsupported}</Notice>}
      {renaming && (
        <RenameDialog
          passkey={renaming}
          onClose={() => setRenaming(null)}
          onRenamed={() => {
            setRenaming(null);
            passkeys.reload();
          }}
        />
      )}
      {removing && (
        <ConfirmDialog
          title={words.removeTitle}
          body={words.removeConfirm(removing.name)}
          confirmLabel={words.removeYes}
          danger
          onConfirm={async () => {
            await removePasskey(removing.id);
            setRemoving(null);
            passkeys.reload();
          }}
          onClose={() => setRemoving(null)}
        />
      )}
    </section>
  );
}

interface NameForm {
  name: string;
}

function AddPasskey({ onAdded }: { onAdded: () => void }) {
  const { t } = useI18n();
  const words = t.passkeys;
  const [added, setAdded] = useState(false);
  /** Why the browser made no passkey, in the reader's words; null when it made one or was not asked yet. */
  const [browserRefused, setBrowserRefused] = useState<string | null>(null);
  const form = useApiForm<NameForm>({ name: '' }, ['name'], async (v, { reset }) => {
    setAdded(false);
    setBrowserRefused(null);
    const optionsJSON = await passkeyRegistrationOptions();
    let response;
    try {
      response = await startRegistration({ optionsJSON });
    } catch (e) {
      // The user closed the browser's prompt, it timed out, or no authenticator answered: nothing reached the server.
      if (e instanceof ApiError) throw e;
      // The options exclude the user's passkeys: an authenticator holding one of them declines to make another.
      const onDevice = e instanceof WebAuthnError && e.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED';
      setBrowserRefused(onDevice ? words.alreadyOnDevice : words.cancelled);
      return;
    }
    await registerPasskey(v.name.trim(), response);
    reset();
    setAdded(true);
    onAdded();
  });
  const { errors, isSubmitting } = form.formState;
  return (
    <form class="inline-form" aria-labelledby="add-passkey-title" onSubmit={form.onSubmit} noValidate>
      <h3 id="add-passkey-title">{words.add}</h3>
      <TextField id="passkey-name" label={words.name} hint={words.nameHint} error={errors.name} field={form.register('name', nameRules(t))} />
      <ErrorMessage error={form.formError} />
      {browserRefused !== null && (
        <div class="error" role="alert">
          <span>{browserRefused}</span>
        </div>
      )}
      <button type="submit" class="primary" disabled={isSubmitting} aria-busy={isSubmitting}>
        {words.add}
      </button>
      {added && <Notice>{words.added}</Notice>}
    </form>
  );
}

function RenameDialog({ passkey, onClose, onRenamed }: { passkey: PasskeyView; onClose: () => void; onRenamed: () => void }) {
  const { t } = useI18n();
  const words = t.passkeys;
  const {
    register,
    trigger,
    getValues,
    setError,
    formState: { errors },
  } = useForm<NameForm>({ defaultValues: { name: passkey.name } });
  const rename = async () => {
    if (!(await trigger())) throw new ShownBesideField();
    try {
      await renamePasskey(passkey.id, getValues('name').trim());
    } catch (e) {
      const left = placeApiError(e, t, setError, ['name']);
      if (left instanceof Error) throw left;
      throw new ShownBesideField();
    }
    onRenamed();
  };
  return (
    <ConfirmDialog title={words.renameTitle} body={passkey.name} confirmLabel={t.save} onConfirm={rename} onClose={onClose}>
      <Field id="passkey-new-name" label={words.name} error={errors.name}>
        <input id="passkey-new-name" {...described('passkey-new-name', false, errors.name)} {...register('name', nameRules(t))} />
      </Field>
    </ConfirmDialog>
  );
}
