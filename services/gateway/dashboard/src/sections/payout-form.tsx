import { useRef, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { getBalance } from '../api/money';
import { createPayout, type NewPayout } from '../api/payouts';
import { formatRub } from '../format';
import { useI18n } from '../i18n';
import { ErrorMessage } from '../kit/common';
import { described, Field, placeFieldInWords, TextField, useApiForm } from '../kit/forms';
import { useLoad } from '../kit/use-load';
import type { MerchantShop, Payout, PayoutDestination } from '../types';

interface PayoutForm {
  shop_id: string;
  amount: string;
  destination_id: string;
  description: string;
}

const AMOUNT = /^(0|[1-9]\d{0,9})([.,]\d{1,2})?$/;

/**
 * A new payout: shop, amount, one of the active destinations. The server asks for step-up (client.ts opens the dialog
 * and sends it again), and the answer says whether it waits for another member's approval. Each body sent keeps its
 * Idempotency-Key while the form is shown, so a repeat after a lost answer makes no second payout.
 */
export function NewPayoutForm({
  shops,
  destinations,
  onCreated,
}: {
  shops: readonly MerchantShop[];
  destinations: readonly PayoutDestination[];
  onCreated: (p: Payout) => void;
}) {
  const { t, lang } = useI18n();
  const [made, setMade] = useState(0);
  const keys = useRef(new Map<string, string>());
  const keyFor = (body: NewPayout): string => {
    const text = JSON.stringify(body);
    const known = keys.current.get(text) ?? crypto.randomUUID();
    keys.current.set(text, known);
    return known;
  };
  const form = useApiForm<PayoutForm>(
    { shop_id: String(shops[0]?.id ?? ''), amount: '', destination_id: destinations[0]?.id ?? '', description: '' },
    ['shop_id', 'amount', 'destination_id', 'description'],
    async (v, f) => {
      const body: NewPayout = {
        shop_id: Number(v.shop_id),
        amount: v.amount.trim().replace(',', '.'),
        destination_id: v.destination_id,
        ...(v.description.trim() ? { description: v.description.trim() } : {}),
      };
      let payout: Payout;
      try {
        payout = await createPayout(body, keyFor(body));
      } catch (e) {
        // The server's bounds of an amount (100.00 to PAYOUT_MAX) come in English: beside the field in our words.
        const rest = placeFieldInWords(e, 'amount', t.payoutAmountInvalid, f.setError);
        if (rest === null) return;
        // The rest of the answer (an ApiError without the amount), or what was thrown when it was no answer at all.
        if (rest instanceof Error) throw rest;
        throw e;
      }
      onCreated(payout);
      f.reset({ ...v, amount: '', description: '' });
      setMade((n) => n + 1);
    },
  );
  const { register, formState, watch } = form;
  const { errors, isSubmitting } = formState;
  const shopId = watch('shop_id');
  // What the chosen shop may pay out now (docs/payouts.md: a payout takes at most `available`), read again after each payout.
  const balance = useLoad(() => getBalance(Number(shopId)), `${shopId}-${made}`);
  // The last shop's answer is not shown under the next one while its own loads.
  const shown = balance.data?.shop_id === Number(shopId) ? balance.data : undefined;
  const available = shown ? t.payoutAvailable(formatRub(shown.available, lang)) : undefined;
  return (
    <form class="card" aria-labelledby="payout-new-title" onSubmit={form.onSubmit} noValidate>
      <h2 id="payout-new-title">{t.payoutNew}</h2>
      <Field id="payout-shop" label={t.shop} hint={available} error={errors.shop_id}>
        <select
          id="payout-shop"
          {...described('payout-shop', available !== undefined, errors.shop_id)}
          {...register('shop_id', { required: t.required })}
        >
          {shops.map((s) => (
            <option key={s.id} value={String(s.id)}>
              {s.name}
            </option>
          ))}
        </select>
      </Field>
      <TextField
        id="payout-amount"
        label={`${t.amount}, ₽`}
        hint={t.payoutAmountHint}
        inputMode="decimal"
        error={errors.amount}
        field={register('amount', { required: t.required, validate: (v) => AMOUNT.test(v.trim()) || t.badAmount })}
      />
      {destinations.length === 0 ? (
        <p class="notice">
          {t.payoutNoDestination} <Link href="/payout-destinations">{t.navPayoutDestinations}</Link>
        </p>
      ) : (
        <Field id="payout-destination" label={t.payoutDestination} error={errors.destination_id}>
          <select
            id="payout-destination"
            {...described('payout-destination', false, errors.destination_id)}
            {...register('destination_id', { required: t.required })}
          >
            {destinations.map((d) => (
              <option key={d.id} value={d.id}>
                {`${t.destinationType[d.type]} ${d.masked}${d.network ? ` · ${d.network}` : ''}`}
              </option>
            ))}
          </select>
        </Field>
      )}
      <TextField
        id="payout-description"
        label={t.description}
        error={errors.description}
        field={register('description', { maxLength: { value: 500, message: t.tooLong(500) } })}
      />
      <ErrorMessage error={form.formError} />
      <button type="submit" class="primary" disabled={isSubmitting || destinations.length === 0} aria-busy={isSubmitting}>
        {isSubmitting ? t.creating : t.payoutCreate}
      </button>
    </form>
  );
}
