import { useState } from 'preact/hooks';
import type { FieldErrors, UseFormRegister } from 'react-hook-form';
import type { ShopSettings } from '../api/shops';
import { useI18n, type Messages } from '../i18n';
import { ErrorMessage } from '../kit/common';
import { described, Field, TextField, useApiForm } from '../kit/forms';
import type { MerchantShop } from '../types';

interface ShopValues {
  name: string;
  webhook_url: string;
  fee_payer: MerchantShop['fee_payer'];
}
const SHOP_FIELDS = ['name', 'webhook_url', 'fee_payer'] as const;
const FEE_PAYERS = ['merchant', 'client', 'split'] as const;

/** The body of a create or update: an empty webhook address means none (null). */
const shopBody = (v: ShopValues): ShopSettings => ({ name: v.name.trim(), webhook_url: v.webhook_url.trim() || null, fee_payer: v.fee_payer });

/**
 * A shop's name, webhook address and fee payer: the new-shop form (no `shop`) and a shop's settings. `save` sends them;
 * the API's field errors land beside their fields.
 */
export function ShopForm({
  id,
  title,
  shop,
  save,
  submitLabel,
  onSaved,
  onCancel,
}: {
  id: string;
  title: string;
  shop?: MerchantShop;
  save: (body: ShopSettings) => Promise<MerchantShop>;
  submitLabel: string;
  onSaved: (shop: MerchantShop) => void;
  onCancel?: () => void;
}) {
  const { t } = useI18n();
  const [saved, setSaved] = useState(false);
  const form = useApiForm<ShopValues>(
    { name: shop?.name ?? '', webhook_url: shop?.webhook_url ?? '', fee_payer: shop?.fee_payer ?? 'merchant' },
    SHOP_FIELDS,
    async (v) => {
      setSaved(false);
      onSaved(await save(shopBody(v)));
      setSaved(true);
    },
  );
  const { errors, isSubmitting } = form.formState;
  return (
    <form class="card" aria-labelledby={`${id}-title`} onSubmit={form.onSubmit} noValidate>
      <h2 id={`${id}-title`}>{title}</h2>
      <ShopFields prefix={id} t={t} register={form.register} errors={errors} />
      <ErrorMessage error={form.formError} />
      <div class="actions">
        <button type="submit" class="primary" disabled={isSubmitting}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            {t.cancel}
          </button>
        )}
        {saved && <span role="status">{t.saved}</span>}
      </div>
    </form>
  );
}

/** Name, webhook address and fee payer. */
function ShopFields({
  prefix,
  t,
  register,
  errors,
}: {
  prefix: string;
  t: Messages;
  register: UseFormRegister<ShopValues>;
  errors: FieldErrors<ShopValues>;
}) {
  return (
    <>
      <TextField
        id={`${prefix}-name`}
        label={t.shopName}
        autocomplete="organization"
        error={errors.name}
        field={register('name', { validate: (v) => v.trim().length > 0 || t.required, maxLength: { value: 100, message: t.tooLong(100) } })}
      />
      <TextField
        id={`${prefix}-webhook_url`}
        label={t.webhookUrl}
        hint={t.webhookUrlHint}
        type="url"
        inputMode="url"
        autocomplete="url"
        error={errors.webhook_url}
        field={register('webhook_url', {
          validate: (v) => v.trim() === '' || /^https?:\/\/\S+$/i.test(v.trim()) || t.badUrl,
          maxLength: { value: 2048, message: t.tooLong(2048) },
        })}
      />
      <Field id={`${prefix}-fee_payer`} label={t.feePayer} error={errors.fee_payer}>
        <select id={`${prefix}-fee_payer`} {...described(`${prefix}-fee_payer`, false, errors.fee_payer)} {...register('fee_payer')}>
          {FEE_PAYERS.map((f) => (
            <option key={f} value={f}>
              {t.feePayers[f]}
            </option>
          ))}
        </select>
      </Field>
    </>
  );
}
