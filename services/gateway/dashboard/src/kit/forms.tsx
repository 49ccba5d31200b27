import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import {
  useForm,
  type DefaultValues,
  type FieldError,
  type FieldValues,
  type Path,
  type UseFormRegisterReturn,
  type UseFormReturn,
  type UseFormSetError,
} from 'react-hook-form';
import { ApiError } from '../api/client';
import { fieldIssueText, useI18n, type Messages } from '../i18n';
import type { Mode } from '../mode';

/** The ids of a field's hint and error, for `aria-describedby`, and its `aria-invalid`. */
export function described(id: string, hint: boolean, error: FieldError | undefined): Record<string, string | boolean> {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { ...(ids ? { 'aria-describedby': ids } : {}), 'aria-invalid': error !== undefined };
}

/** A labelled form field with its hint and its error (from the form's own checks or from the API). */
export function Field({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  error?: FieldError | undefined;
  children: ComponentChildren;
}) {
  return (
    <div class={error ? 'field invalid' : 'field'}>
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`} role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}

/**
 * Puts an API validation error's `details[].field` beside the form fields they name. Returns the error when
 * something is left for the form as a whole (another code, or a field the form does not have), else null.
 */
export function placeApiError<T extends FieldValues>(e: unknown, t: Messages, setError: UseFormSetError<T>, fields: readonly Path<T>[]): unknown {
  if (!(e instanceof ApiError) || e.details.length === 0) return e;
  const known = e.details.filter((d) => (fields as readonly string[]).includes(d.field));
  for (const d of known) setError(d.field as Path<T>, { type: 'server', message: fieldIssueText(t, d) }, { shouldFocus: d === known[0] });
  return known.length === e.details.length ? null : e;
}

/**
 * Puts the API's complaint about one field beside it in our words (the server judges some values, such as a crypto
 * address, in English only). Returns what is left for the form as a whole: the error without that field, or null.
 */
export function placeFieldInWords<T extends FieldValues>(e: unknown, field: Path<T>, words: string, setError: UseFormSetError<T>): unknown {
  if (!(e instanceof ApiError) || !e.details.some((d) => d.field === field)) return e;
  setError(field, { type: 'server', message: words }, { shouldFocus: true });
  const rest = e.details.filter((d) => d.field !== field);
  return rest.length === 0 ? null : new ApiError(e.status, e.code, e.message, rest);
}

/** Live or test, as two radio buttons under one legend (a key's mode: API key create, cashier-key reissue). */
export function ModeChoice({
  name,
  legend,
  hint,
  value,
  onChange,
  t,
}: {
  name: string;
  legend: string;
  hint?: string;
  value: Mode;
  onChange: (mode: Mode) => void;
  t: Messages;
}) {
  return (
    <fieldset class="field mode-choice" aria-describedby={hint ? `${name}-hint` : undefined}>
      <legend>{legend}</legend>
      {(['live', 'test'] as const).map((m) => (
        <label key={m}>
          <input type="radio" name={name} value={m} checked={value === m} onChange={() => onChange(m)} />
          {t.modes[m]}
        </label>
      ))}
      {hint && (
        <p class="hint" id={`${name}-hint`}>
          {hint}
        </p>
      )}
    </fieldset>
  );
}

/** A text input with its label, hint and error; `field` is react-hook-form's `register(...)` of it. */
export function TextField({
  id,
  label,
  hint,
  error,
  field,
  type = 'text',
  autocomplete = 'off',
  inputMode,
}: {
  id: string;
  label: string;
  hint?: string;
  error: FieldError | undefined;
  field: UseFormRegisterReturn;
  type?: 'text' | 'email' | 'password' | 'url';
  autocomplete?: string;
  inputMode?: 'text' | 'decimal' | 'numeric' | 'url';
}) {
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      <input id={id} type={type} autocomplete={autocomplete} inputMode={inputMode} {...described(id, hint !== undefined, error)} {...field} />
    </Field>
  );
}

export type ApiForm<V extends FieldValues> = UseFormReturn<V> & {
  /** What the API refused that no field of the form can show. */
  formError: unknown;
  onSubmit: (e: Event) => void;
};

/**
 * A form that sends its values to the API: the browser's checks first, then `send`; a refusal's field errors land beside
 * their fields (`fields` are the ones the form has), the rest in `formError`.
 */
export function useApiForm<V extends FieldValues>(
  defaultValues: DefaultValues<V>,
  fields: readonly Path<V>[],
  send: (values: V, form: UseFormReturn<V>) => Promise<void>,
): ApiForm<V> {
  const { t } = useI18n();
  const form = useForm<V>({ defaultValues });
  const [formError, setFormError] = useState<unknown>(null);
  const onSubmit = (e: Event) =>
    void form.handleSubmit(async (values) => {
      setFormError(null);
      try {
        await send(values, form);
      } catch (err) {
        setFormError(placeApiError(err, t, form.setError, fields));
      }
    })(e);
  return { ...form, formError, onSubmit };
}
