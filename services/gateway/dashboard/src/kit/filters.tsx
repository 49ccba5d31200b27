import type { ComponentChildren } from 'preact';
import type { FieldValues, Path, UseFormRegister } from 'react-hook-form';
import { useI18n } from '../i18n';

/** A list's filters: the fields, Apply, and Reset (back to no filter). */
export function FilterForm({ onApply, onReset, children }: { onApply: (e: Event) => void; onReset: () => void; children: ComponentChildren }) {
  const { t } = useI18n();
  return (
    <form class="filters" aria-label={t.filters} onSubmit={onApply}>
      {children}
      <div class="actions">
        <button type="submit" class="primary">
          {t.apply}
        </button>
        <button type="button" onClick={onReset}>
          {t.reset}
        </button>
      </div>
    </form>
  );
}

/** A filter's choice: "any" (the empty value) or one of the options, `[value, words]`. */
export function FilterSelect<F extends FieldValues>({
  id,
  name,
  label,
  any,
  options,
  register,
}: {
  id: string;
  name: Path<F>;
  label: string;
  any: string;
  options: readonly (readonly [string, string])[];
  register: UseFormRegister<F>;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} {...register(name)}>
        <option value="">{any}</option>
        {options.map(([value, words]) => (
          <option key={value} value={value}>
            {words}
          </option>
        ))}
      </select>
    </div>
  );
}
