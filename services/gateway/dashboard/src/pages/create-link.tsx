import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { createLink } from '../api/links';
import { useI18n } from '../i18n';
import { ErrorMessage, Loading, Money, PageTitle, TestBadge } from '../kit/common';
import { described, Field, TextField, useApiForm } from '../kit/forms';
import { useShops } from '../loaders/shops';
import { useMode } from '../mode';
import { CheckoutUrl } from '../sections/checkout-url';
import type { MerchantShop, PaymentLink } from '../types';

interface CreateLinkForm {
  shop_id: string;
  amount: string;
  order_id: string;
  description: string;
  expires_in_minutes: string;
}

const AMOUNT = /^(0|[1-9]\d{0,7})([.,]\d{1,2})?$/;
const INTEGER = /^[1-9]\d*$/;

export function CreateLinkPage() {
  const { t } = useI18n();
  const { mode } = useMode();
  const shops = useShops();
  const [created, setCreated] = useState<PaymentLink | null>(null);
  const [round, setRound] = useState(0);

  if (created)
    return (
      <>
        <PageTitle title={t.linkCreated}>
          {t.linkCreated} <TestBadge livemode={created.livemode} />
        </PageTitle>
        <section class="card created-link" data-testid="created-link">
          <p>
            <Money value={created.amount} /> {created.order_id && <span>· {created.order_id}</span>}
          </p>
          <CheckoutUrl url={created.checkout_url} />
          <div class="actions">
            <Link href={`/links/${created.id}`} class="button primary">
              {t.toLinkDetails}
            </Link>
            <button
              type="button"
              onClick={() => {
                setRound((r) => r + 1);
                setCreated(null);
              }}
            >
              {t.createAnother}
            </button>
          </div>
        </section>
      </>
    );

  // A live link needs an approved shop; a test one also takes a shop awaiting approval, so a merchant can integrate
  // before the operator has looked (docs/test-mode.md).
  const usable = shops.data?.shops.filter((s) => s.status === 'approved' || (mode === 'test' && s.status === 'pending')) ?? [];
  return (
    <>
      <PageTitle title={t.createLinkTitle}>{t.createLinkTitle}</PageTitle>
      <p>
        <Link href="/links">{t.backToLinks}</Link>
      </p>
      {shops.loading && <Loading />}
      <ErrorMessage error={shops.error} onRetry={shops.reload} />
      {shops.data && usable.length === 0 && <p class="notice">{mode === 'test' ? t.noShopForTestLink : t.noApprovedShop}</p>}
      {shops.data && usable.length > 0 && <CreateLinkForm key={round} shops={usable} onCreated={setCreated} />}
    </>
  );
}

/** Mounted once the shops are known, so the first usable shop is the form's starting value. */
function CreateLinkForm({ shops, onCreated }: { shops: MerchantShop[]; onCreated: (link: PaymentLink) => void }) {
  const { t } = useI18n();
  const form = useApiForm<CreateLinkForm>(
    { shop_id: String(shops[0]?.id ?? ''), amount: '', order_id: '', description: '', expires_in_minutes: '' },
    ['shop_id', 'amount', 'order_id', 'description', 'expires_in_minutes'],
    async (v) => {
      onCreated(
        await createLink({
          shop_id: Number(v.shop_id),
          // Sent as a decimal string, so no floating point ever touches it.
          amount: v.amount.trim().replace(',', '.'),
          ...(v.order_id.trim() ? { order_id: v.order_id.trim() } : {}),
          ...(v.description.trim() ? { description: v.description.trim() } : {}),
          ...(v.expires_in_minutes.trim() ? { expires_in_minutes: Number(v.expires_in_minutes) } : {}),
        }),
      );
    },
  );
  const { register, formState } = form;
  const { errors, isSubmitting } = formState;

  return (
    <form class="card" onSubmit={form.onSubmit} noValidate>
      <Field id="shop_id" label={t.shop} error={errors.shop_id}>
        <select id="shop_id" {...described('shop_id', false, errors.shop_id)} {...register('shop_id', { required: t.required })}>
          {shops.map((s) => (
            <option key={s.id} value={String(s.id)}>
              {s.name}
            </option>
          ))}
        </select>
      </Field>
      <TextField
        id="amount"
        label={`${t.amount}, ₽`}
        hint={t.amountHint}
        inputMode="decimal"
        error={errors.amount}
        field={register('amount', {
          required: t.required,
          validate: (v) => (AMOUNT.test(v.trim()) && !/^0([.,]0{1,2})?$/.test(v.trim())) || t.badAmount,
        })}
      />
      <TextField
        id="order_id"
        label={t.orderId}
        error={errors.order_id}
        field={register('order_id', { maxLength: { value: 128, message: t.tooLong(128) } })}
      />
      <Field id="description" label={t.description} error={errors.description}>
        <textarea
          id="description"
          rows={3}
          {...described('description', false, errors.description)}
          {...register('description', { maxLength: { value: 1024, message: t.tooLong(1024) } })}
        />
      </Field>
      <TextField
        id="expires_in_minutes"
        label={t.expiresInMinutes}
        hint={t.expiresHint}
        inputMode="numeric"
        error={errors.expires_in_minutes}
        field={register('expires_in_minutes', {
          validate: (v) => v.trim() === '' || (INTEGER.test(v.trim()) && Number(v) <= 43_200) || t.badInteger(1, 43_200),
        })}
      />
      <ErrorMessage error={form.formError} />
      <button type="submit" class="primary" disabled={isSubmitting}>
        {isSubmitting ? t.creating : t.create}
      </button>
    </form>
  );
}
