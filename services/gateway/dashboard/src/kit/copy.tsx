import { useState } from 'preact/hooks';
import { useI18n } from '../i18n';

/** Copies `text`; says so in a live region. Falls back to selecting the field when the clipboard is refused. */
function CopyButton({ text, fieldId, label }: { text: string; fieldId?: string; label: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      if (fieldId) (document.getElementById(fieldId) as HTMLInputElement | null)?.select();
      setState('failed');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={() => void copy()} aria-label={`${t.copy}: ${label}`}>
        {t.copy}
      </button>
      <span class="copy-state" role="status">
        {state === 'copied' ? t.copied : state === 'failed' ? t.copyFailed : ''}
      </span>
    </span>
  );
}

/** A value to copy: a read-only field (selectable, never cut off) with its copy button. */
export function CopyField({ id, label, value }: { id: string; label: string; value: string }) {
  return (
    <div class="field copy-field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input id={id} type="text" readOnly value={value} spellcheck={false} autocomplete="off" />
        <CopyButton text={value} fieldId={id} label={label} />
      </div>
    </div>
  );
}

/** Secrets shown exactly once: each with a copy button, and the warning that they will not be shown again. */
export function SecretReveal({
  title,
  secrets,
  onDone,
}: {
  title: string;
  secrets: { id: string; label: string; value: string }[];
  onDone: () => void;
}) {
  const { t } = useI18n();
  const titleId = `${secrets[0]?.id ?? 'secret'}-title`;
  return (
    <section class="secret" aria-labelledby={titleId} data-testid="secret-reveal">
      <h2 id={titleId}>{title}</h2>
      <p class="warning" role="alert">
        {t.secretOnceWarning}
      </p>
      {secrets.map((s) => (
        <CopyField key={s.id} id={s.id} label={s.label} value={s.value} />
      ))}
      <button type="button" onClick={onDone}>
        {t.done}
      </button>
    </section>
  );
}
