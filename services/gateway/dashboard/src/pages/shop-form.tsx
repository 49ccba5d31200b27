import type { FieldErrors, UseFormRegister } from 'react-hook-form';
import { described, Field } from '../components/forms';
import type { Messages } from '../i18n';

export interface ShopForm {
  name: string;
  webhook_url: string;
  fee_payer: (typeof FEE_PAYERS)[number];
}
export const SHOP_FIELDS = ['name', 'webhook_url', 'fee_payer'] as const;
const FEE_PAYERS = ['merchant', 'client', 'split'] as const;

/** The body of a create or update: an empty webhook address means none (null). */
export const shopBody = (v: ShopForm) => ({ name: v.name.trim(), webhook_url: v.webhook_url.trim() || null, fee_payer: v.fee_payer });

/** Name, webhook address and fee payer, shared by the create and settings forms. */
export function ShopFields({
  prefix,
  t,
  register,
  errors,
}: {
  prefix: string;
  t: Messages;
  register: UseFormRegister<ShopForm>;
  errors: FieldErrors<ShopForm>;
}) {
  return (
    <>
      <Field id={`${prefix}-name`} label={t.shopName} error={errors.name}>
        <input
          id={`${prefix}-name`}
          autocomplete="organization"
          {...described(`${prefix}-name`, false, errors.name)}
          {...register('name', {
            validate: (v) => v.trim().length > 0 || t.required,
            maxLength: { value: 100, message: t.tooLong(100) },
          })}
        />
      </Field>
      <Field id={`${prefix}-webhook_url`} label={t.webhookUrl} hint={t.webhookUrlHint} error={errors.webhook_url}>
        <input
          id={`${prefix}-webhook_url`}
          type="url"
          inputMode="url"
          autocomplete="url"
          {...described(`${prefix}-webhook_url`, true, errors.webhook_url)}
          {...register('webhook_url', {
            validate: (v) => v.trim() === '' || /^https?:\/\/\S+$/i.test(v.trim()) || t.badUrl,
            maxLength: { value: 2048, message: t.tooLong(2048) },
          })}
        />
      </Field>
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
