import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorMessage } from './common';
import { useI18n } from '../i18n';

/** Thrown by an `onConfirm` whose problem is already shown beside a field of the dialog. */
export class ShownBesideField extends Error {}

interface ConfirmProps {
  title: string;
  body: string;
  confirmLabel: string;
  /** The action; a throw keeps the dialog open with the error beside the buttons. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
  danger?: boolean;
  children?: ComponentChildren;
}

/**
 * Opens the <dialog> it is given as modal while the component is mounted: the browser keeps focus inside it and makes
 * the page behind inert; on unmount it closes and focus returns to the element that had it when it opened.
 */
export function useModal() {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog?.open) dialog.close();
      opener?.focus();
    };
  }, []);
  return ref;
}

/**
 * A confirmation in a native modal <dialog>: the browser keeps focus inside it and makes the page behind inert,
 * Escape cancels, and focus returns to the button that opened it.
 */
export function ConfirmDialog({ title, body, confirmLabel, onConfirm, onClose, danger = false, children }: ConfirmProps) {
  const { t } = useI18n();
  const ref = useModal();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const confirm = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
    } catch (err) {
      setError(err instanceof ShownBesideField ? null : err);
      setBusy(false);
    }
  };
  return (
    <dialog
      ref={ref}
      aria-labelledby="dialog-title"
      aria-describedby="dialog-body"
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onClose();
      }}
    >
      <form onSubmit={(e) => void confirm(e)}>
        <h2 id="dialog-title">{title}</h2>
        <p id="dialog-body">{body}</p>
        {children}
        <ErrorMessage error={error} />
        <div class="actions">
          <button type="button" onClick={onClose} disabled={busy} autofocus>
            {t.cancel}
          </button>
          <button type="submit" class={danger ? 'danger' : 'primary'} disabled={busy} aria-busy={busy}>
            {confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
