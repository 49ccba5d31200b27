import { formatKopecks, parseAmountText } from '@pl/money';
import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { createRefund, listRefunds, simulateRefund, type RefundInput } from '../api/money';
import { formatRub } from '../format';
import { useI18n } from '../i18n';
import { Badge, DateTime, ErrorMessage, Loading, Money, Notice } from '../kit/common';
import { ConfirmDialog } from '../kit/dialog';
import { Facts } from '../kit/fields';
import { described, Field, placeApiError, placeFieldInWords } from '../kit/forms';
import { useAction, useLoad } from '../kit/use-load';
import type { PaymentLink, Refund } from '../types';
import { useMay } from '../session';

/**
 * @pl/contracts' CRYPTO_NETWORKS, written out (a value import would bundle zod): a link paid on one of them refunds to
 * an address the merchant gives; any other refunds through the provider.
 */
const CRYPTO_NETWORKS = new Set(['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON']);
const REFUND_FIELDS = ['amount', 'reason', 'destination'] as const;

/** Kopecks of a wire amount (always valid text from the API). */
const kopecks = (text: string): number => {
  const negative = text.startsWith('-');
  const value = parseAmountText(negative ? text.slice(1) : text) ?? 0;
  return negative ? -value : value;
};

/** What may still be refunded: the amount less the succeeded and pending refunds (the platform keeps its fee). */
const refundableOf = (link: PaymentLink, refunds: readonly Refund[]): number =>
  kopecks(link.amount) - kopecks(link.amount_refunded) - refunds.filter((r) => r.status === 'pending').reduce((sum, r) => sum + kopecks(r.amount), 0);

/** A paid link's refunds, and the action to make one. `onChanged` reloads the link (its amount_refunded moved). */
export function LinkRefunds({ link, onChanged }: { link: PaymentLink; onChanged: () => void }) {
  const { t } = useI18n();
  const may = useMay();
  const list = useLoad(() => listRefunds(link.id), link.id);
  const [created, setCreated] = useState<Refund | null>(null);
  const refunds = list.data?.refunds ?? [];
  const replace = (r: Refund) => {
    if (list.data) list.setData({ ...list.data, refunds: list.data.refunds.map((x) => (x.id === r.id ? r : x)) });
    onChanged();
  };
  const refundable = list.data ? refundableOf(link, refunds) : 0;
  return (
    <section aria-labelledby="refunds-title" data-testid="refunds">
      <h2 id="refunds-title">{t.refundsTitle}</h2>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && link.status === 'paid' && (
        <Facts
          facts={[
            { label: t.amountRefunded, value: <Money value={link.amount_refunded} />, testId: 'amount-refunded' },
            { label: t.refundable, value: <Money value={formatKopecks(refundable)} />, testId: 'refundable' },
          ]}
        />
      )}
      {created && <Notice>{t.refundCreated}</Notice>}
      {list.data && link.status === 'paid' && refundable > 0 && may('move_money') && (
        <RefundForm
          key={refundable}
          link={link}
          refundable={refundable}
          onCreated={(r) => {
            if (list.data) list.setData({ ...list.data, refunds: [r, ...list.data.refunds] });
            setCreated(r);
            onChanged();
          }}
        />
      )}
      {list.data && link.status === 'paid' && refundable <= 0 && <p>{t.refundNothingLeft}</p>}
      {list.data?.refunds.length === 0 && <p>{t.refundsEmpty}</p>}
      {refunds.map((r) => (
        <RefundCard key={r.id} refund={r} onSettled={replace} />
      ))}
    </section>
  );
}

interface RefundForm {
  amount: string;
  reason: string;
  destination: string;
}

function RefundForm({ link, refundable, onCreated }: { link: PaymentLink; refundable: number; onCreated: (r: Refund) => void }) {
  const { t, lang } = useI18n();
  const toAddress = link.network !== null && CRYPTO_NETWORKS.has(link.network);
  const max = formatKopecks(refundable);
  const [confirming, setConfirming] = useState<RefundInput | null>(null);
  // One key per confirmed refund: a retry of the same confirmation (a lost answer) cannot refund twice.
  const [idempotencyKey, setIdempotencyKey] = useState('');
  const [formError, setFormError] = useState<unknown>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<RefundForm>({ defaultValues: { amount: max, reason: '', destination: '' } });
  /** The server judges the address (format and checksum) in English; the merchant reads it in the page's language. Null when nothing else is left to show. */
  const withAddressInWords = (e: unknown): unknown => placeFieldInWords(e, 'destination', t.destinationInvalid(link.network ?? ''), setError);
  const create = async () => {
    if (!confirming) return;
    try {
      const refund = await createRefund(link.id, confirming, idempotencyKey);
      setConfirming(null);
      onCreated(refund);
    } catch (e) {
      setConfirming(null);
      setFormError(placeApiError(withAddressInWords(e), t, setError, REFUND_FIELDS));
    }
  };
  return (
    <>
      <form
        class="card"
        aria-labelledby="refund-form-title"
        noValidate
        onSubmit={(e) =>
          void handleSubmit((v) => {
            setFormError(null);
            setIdempotencyKey(crypto.randomUUID());
            setConfirming({
              // Written as the API writes money ("300" -> "300.00"), so the confirmation reads as the refund will.
              amount: formatKopecks(parseAmountText(v.amount.trim().replace(',', '.')) ?? 0),
              reason: v.reason.trim() || null,
              destination: toAddress ? v.destination.trim() : null,
            });
          })(e)
        }
      >
        <h3 id="refund-form-title">{t.refundTitle}</h3>
        <Field id="refund-amount" label={`${t.amount}, ₽`} hint={t.refundAmountHint(formatRub(max, lang))} error={errors.amount}>
          <input
            id="refund-amount"
            inputMode="decimal"
            autocomplete="off"
            {...described('refund-amount', true, errors.amount)}
            {...register('amount', {
              required: t.required,
              validate: (v) => {
                const k = parseAmountText(v.trim().replace(',', '.'));
                if (k === null) return t.badAmount;
                return k <= refundable || t.refundOverMax(formatRub(max, lang));
              },
            })}
          />
        </Field>
        {toAddress && (
          <Field id="refund-destination" label={t.destination} hint={t.destinationHint(link.network ?? '')} error={errors.destination}>
            <input
              id="refund-destination"
              autocomplete="off"
              spellcheck={false}
              class="mono"
              {...described('refund-destination', true, errors.destination)}
              {...register('destination', { validate: (v) => v.trim().length > 0 || t.required, maxLength: { value: 128, message: t.tooLong(128) } })}
            />
          </Field>
        )}
        <Field id="refund-reason" label={t.reason} hint={t.reasonHint} error={errors.reason}>
          <textarea
            id="refund-reason"
            rows={2}
            {...described('refund-reason', true, errors.reason)}
            {...register('reason', { validate: (v) => Array.from(v.trim()).length <= 500 || t.tooLong(500) })}
          />
        </Field>
        <ErrorMessage error={formError} />
        <div class="actions">
          <button type="submit" class="danger">
            {t.refundContinue}
          </button>
        </div>
      </form>
      {confirming && (
        <ConfirmDialog
          title={t.refund}
          body={t.refundConfirm(formatRub(confirming.amount, lang))}
          confirmLabel={t.refundYes}
          danger
          onConfirm={create}
          onClose={() => setConfirming(null)}
        />
      )}
    </>
  );
}

function RefundCard({ refund, onSettled }: { refund: Refund; onSettled: (r: Refund) => void }) {
  const { t } = useI18n();
  const may = useMay();
  const simulate = useAction(async (status: 'succeeded' | 'failed') => onSettled(await simulateRefund(refund.id, status)));
  const titleId = `refund-${refund.id}`;
  return (
    <article class="card refund" aria-labelledby={titleId} data-testid="refund">
      <h3 id={titleId}>
        <Money value={refund.amount} /> <Badge kind={refund.status}>{t.refundStatus[refund.status]}</Badge>
      </h3>
      <Facts
        facts={[
          { label: t.created, value: <DateTime value={refund.created_at} /> },
          refund.reason !== null && { label: t.reason, value: refund.reason },
          refund.destination !== null && { label: t.destination, value: refund.destination, mono: true },
          refund.failure_reason !== null && { label: t.failureReason, value: refund.failure_reason },
          { label: t.refundId, value: <span class="small">{refund.id}</span>, mono: true },
        ]}
      />
      {!refund.livemode && refund.status === 'pending' && may('move_money') && (
        <div class="actions" role="group" aria-label={t.simulateTitle}>
          <button type="button" onClick={() => simulate.run('succeeded')} disabled={simulate.busy} aria-busy={simulate.busy}>
            {t.simulateSucceeded}
          </button>
          <button type="button" onClick={() => simulate.run('failed')} disabled={simulate.busy} aria-busy={simulate.busy}>
            {t.simulateFailed}
          </button>
        </div>
      )}
      <ErrorMessage error={simulate.error} />
    </article>
  );
}
