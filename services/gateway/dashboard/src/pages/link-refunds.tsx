import { formatKopecks, parseAmountText } from '@pl/money';
import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { ApiError } from '../api';
import { Badge, DateTime, ErrorMessage, Loading, Money, Notice } from '../components/common';
import { ConfirmDialog } from '../components/dialog';
import { described, Field, placeApiError } from '../components/forms';
import { formatRub } from '../format';
import { useLoad } from '../hooks';
import { useI18n } from '../i18n';
import { createRefund, listRefunds, simulateRefund, type RefundInput } from '../money-api';
import type { PaymentLink, Refund } from '../types';

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
        <dl class="fields">
          <div>
            <dt>{t.amountRefunded}</dt>
            <dd>
              <Money value={link.amount_refunded} />
            </dd>
          </div>
          <div>
            <dt>{t.refundable}</dt>
            <dd data-testid="refundable">
              <Money value={formatKopecks(refundable)} />
            </dd>
          </div>
        </dl>
      )}
      {created && <Notice>{t.refundCreated}</Notice>}
      {list.data && link.status === 'paid' && refundable > 0 && (
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
  const withAddressInWords = (e: unknown): unknown => {
    if (!(e instanceof ApiError) || !e.details.some((d) => d.field === 'destination')) return e;
    setError('destination', { type: 'server', message: t.destinationInvalid(link.network ?? '') }, { shouldFocus: true });
    const rest = e.details.filter((d) => d.field !== 'destination');
    return rest.length === 0 ? null : new ApiError(e.status, e.code, e.message, rest);
  };
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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const simulate = async (status: 'succeeded' | 'failed') => {
    setBusy(true);
    setError(null);
    try {
      onSettled(await simulateRefund(refund.id, status));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const titleId = `refund-${refund.id}`;
  return (
    <article class="card refund" aria-labelledby={titleId} data-testid="refund">
      <h3 id={titleId}>
        <Money value={refund.amount} /> <Badge kind={refund.status}>{t.refundStatus[refund.status] ?? refund.status}</Badge>
      </h3>
      <dl class="fields">
        <div>
          <dt>{t.created}</dt>
          <dd>
            <DateTime value={refund.created_at} />
          </dd>
        </div>
        {refund.reason && (
          <div>
            <dt>{t.reason}</dt>
            <dd>{refund.reason}</dd>
          </div>
        )}
        {refund.destination && (
          <div>
            <dt>{t.destination}</dt>
            <dd class="mono">{refund.destination}</dd>
          </div>
        )}
        {refund.failure_reason && (
          <div>
            <dt>{t.failureReason}</dt>
            <dd>{refund.failure_reason}</dd>
          </div>
        )}
        <div>
          <dt>{t.field.id}</dt>
          <dd class="mono small">{refund.id}</dd>
        </div>
      </dl>
      {!refund.livemode && refund.status === 'pending' && (
        <div class="actions" role="group" aria-label={t.simulateTitle}>
          <button type="button" onClick={() => void simulate('succeeded')} disabled={busy} aria-busy={busy}>
            {t.simulateSucceeded}
          </button>
          <button type="button" onClick={() => void simulate('failed')} disabled={busy} aria-busy={busy}>
            {t.simulateFailed}
          </button>
        </div>
      )}
      <ErrorMessage error={error} />
    </article>
  );
}
