import { useRef, useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { Link } from 'wouter-preact';
import { ApiError } from '../api/client';
import { listUnresolved, refundUnresolved, settleUnresolved, type UnresolvedFilters } from '../api/unresolved';
import { formatRub } from '../format';
import { useI18n } from '../i18n';
import { Badge, DateTime, Money, Notice, PageTitle, TestBadge } from '../kit/common';
import { DataTable } from '../kit/data-table';
import { ConfirmDialog, ShownBesideField } from '../kit/dialog';
import { FilterForm, FilterSelect } from '../kit/filters';
import { placeFieldInWords, TextField } from '../kit/forms';
import { usePagedLoad } from '../kit/use-load';
import { useShops } from '../loaders/shops';
import { useMay } from '../session';
import type { UnresolvedPaymentView } from '../types';

const STATUSES = ['unresolved', 'settled', 'refunded'] as const;
const REASONS = ['late', 'duplicate', 'underpaid', 'overpaid', 'aml_hold'] as const;
const NO_FILTERS: UnresolvedFilters = { shop_id: '', status: '', reason: '' };

type Action = 'settle' | 'refund';

/**
 * Money that arrived but did not simply pay a pending link (docs/money.md, "Unresolved payments"), newest first, in this
 * mode. A member whose role moves money settles one to its shop's balance or refunds it to the payer, once, after
 * confirming; anyone else who reads money sees the list only. An AML hold is the platform's to resolve.
 */
export function UnresolvedPaymentsPage() {
  const { t } = useI18n();
  const mayResolve = useMay()('move_money');
  const [filters, setFilters] = useState<UnresolvedFilters>(NO_FILTERS);
  const shops = useShops();
  const rows = usePagedLoad((cursor) => listUnresolved(filters, cursor), JSON.stringify(filters));
  const { register, handleSubmit, reset } = useForm<UnresolvedFilters>({ defaultValues: NO_FILTERS });
  const [resolving, setResolving] = useState<{ payment: UnresolvedPaymentView; action: Action } | null>(null);
  const [resolved, setResolved] = useState<UnresolvedPaymentView | null>(null);

  return (
    <>
      <PageTitle title={t.unresolvedTitle}>{t.unresolvedTitle}</PageTitle>
      <p class="hint">{mayResolve ? t.unresolvedHint : `${t.unresolvedHint} ${t.unresolvedReadOnly}`}</p>
      <FilterForm
        onApply={(e) => void handleSubmit(setFilters)(e)}
        onReset={() => {
          reset(NO_FILTERS);
          setFilters(NO_FILTERS);
        }}
      >
        <FilterSelect id="u-shop" name="shop_id" label={t.shop} any={t.anyShop} options={shops.options} register={register} />
        <FilterSelect
          id="u-status"
          name="status"
          label={t.status}
          any={t.anyStatus}
          options={STATUSES.map((s) => [s, t.unresolvedStatus[s]])}
          register={register}
        />
        <FilterSelect
          id="u-reason"
          name="reason"
          label={t.unresolvedReasonLabel}
          any={t.anyReason}
          options={REASONS.map((r) => [r, t.unresolvedReason[r]])}
          register={register}
        />
      </FilterForm>
      {resolved && <Notice>{resolved.status === 'settled' ? t.unresolvedSettled : t.unresolvedRefunded}</Notice>}
      <DataTable
        label={t.unresolvedTitle}
        testId="unresolved-table"
        load={rows}
        items={(page) => page.unresolved_payments}
        empty={t.unresolvedEmpty}
        paging={rows.paging}
        rowKey={(u) => u.id}
        rowType={(u) => u.status}
        columns={[
          { header: t.unresolvedReceived, cell: (u) => <DateTime value={u.created_at} /> },
          { header: t.unresolvedReasonLabel, cell: (u) => t.unresolvedReason[u.reason] },
          { header: t.amount, num: true, cell: (u) => <ArrivedAmount payment={u} /> },
          { header: t.shop, cell: (u) => shops.nameOf(u.shop_id) },
          {
            header: t.paymentLink,
            cell: (u) => (
              <Link href={`/links/${u.payment_link_id}`} class="mono small">
                {u.payment_link_id.slice(0, 8)}
              </Link>
            ),
          },
          // The provider's payment id is on the link's page, with its attempts: here it would crowd out the rest.
          { header: t.attemptProvider, cell: (u) => u.provider },
          {
            header: t.status,
            cell: (u) => (
              <>
                <Badge kind={u.status}>{t.unresolvedStatus[u.status]}</Badge> <TestBadge livemode={u.livemode} />
                {u.resolved_at !== null && (
                  <>
                    <br />
                    <DateTime value={u.resolved_at} />
                  </>
                )}
              </>
            ),
          },
          ...(mayResolve
            ? [
                {
                  header: t.actions,
                  cell: (u: UnresolvedPaymentView) => (
                    <ResolveButtons
                      payment={u}
                      onChoose={(action) => {
                        setResolved(null);
                        setResolving({ payment: u, action });
                      }}
                    />
                  ),
                },
              ]
            : []),
        ]}
      />
      {resolving && (
        <ResolveDialog
          key={`${resolving.payment.id}-${resolving.action}`}
          payment={resolving.payment}
          action={resolving.action}
          onResolved={(u) => {
            setResolving(null);
            setResolved(u);
            rows.reload();
          }}
          onStale={rows.reload}
          onClose={() => setResolving(null)}
        />
      )}
    </>
  );
}

/** What arrived in roubles, and in the coin the buyer sent when it was a crypto payment. */
function ArrivedAmount({ payment }: { payment: UnresolvedPaymentView }) {
  return (
    <>
      <Money value={payment.amount} />
      {payment.payer_crypto_amount !== null && (
        <>
          <br />
          <span class="small">
            {payment.payer_crypto_amount} {payment.payer_currency}
          </span>
        </>
      )}
    </>
  );
}

/** A row's choices: settle or refund while it is unresolved; an AML hold says who resolves it. */
function ResolveButtons({ payment, onChoose }: { payment: UnresolvedPaymentView; onChoose: (action: Action) => void }) {
  const { t } = useI18n();
  if (payment.status !== 'unresolved') return <>{t.none}</>;
  if (payment.reason === 'aml_hold') return <>{t.unresolvedByPlatform}</>;
  return (
    <div class="actions" role="group" aria-label={t.unresolvedResolveOf(payment.payment_link_id.slice(0, 8))}>
      <button type="button" onClick={() => onChoose('settle')}>
        {t.unresolvedSettle}
      </button>
      <button type="button" class="danger" onClick={() => onChoose('refund')}>
        {t.unresolvedRefund}
      </button>
    </div>
  );
}

/**
 * The confirmation of one resolve. A refund of a coin payment asks for the buyer's address. Each body sent gets its own
 * Idempotency-Key, kept while the dialog is open: a retry of the same confirmation (a lost answer) cannot resolve twice.
 * A 409 (resolved meanwhile, elsewhere) is shown here, and the list is read again so the row shows what happened.
 */
function ResolveDialog({
  payment,
  action,
  onResolved,
  onStale,
  onClose,
}: {
  payment: UnresolvedPaymentView;
  action: Action;
  onResolved: (u: UnresolvedPaymentView) => void;
  onStale: () => void;
  onClose: () => void;
}) {
  const { t, lang } = useI18n();
  const toAddress = action === 'refund' && payment.payer_currency !== null;
  const keys = useRef(new Map<string, string>());
  const keyFor = (body: string): string => {
    const known = keys.current.get(body);
    if (known) return known;
    const key = crypto.randomUUID();
    keys.current.set(body, key);
    return key;
  };
  const {
    register,
    trigger,
    getValues,
    setError,
    formState: { errors },
  } = useForm<{ destination: string }>({ defaultValues: { destination: '' } });
  const amount = formatRub(payment.amount, lang);

  const confirm = async () => {
    if (toAddress && !(await trigger('destination'))) throw new ShownBesideField();
    const destination = toAddress ? getValues('destination').trim() : null;
    try {
      onResolved(
        action === 'settle'
          ? await settleUnresolved(payment.id, keyFor('settle'))
          : await refundUnresolved(payment.id, destination, keyFor(`refund:${destination ?? ''}`)),
      );
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) onStale();
      // The body has one field: a complaint about it is all there is to say, beside it.
      if (placeFieldInWords(e, 'destination', t.unresolvedDestinationInvalid, setError) === null) throw new ShownBesideField();
      throw e;
    }
  };

  return (
    <ConfirmDialog
      title={action === 'settle' ? t.unresolvedSettleTitle : t.unresolvedRefundTitle}
      body={action === 'settle' ? t.unresolvedSettleConfirm(amount) : t.unresolvedRefundConfirm(amount)}
      confirmLabel={action === 'settle' ? t.unresolvedSettleYes : t.unresolvedRefundYes}
      danger={action === 'refund'}
      onConfirm={confirm}
      onClose={onClose}
    >
      {toAddress && (
        <TextField
          id="unresolved-destination"
          label={t.destination}
          hint={t.unresolvedDestinationHint(payment.payer_currency ?? '')}
          error={errors.destination}
          field={register('destination', {
            validate: (v) => v.trim().length > 0 || t.required,
            maxLength: { value: 128, message: t.tooLong(128) },
          })}
        />
      )}
    </ConfirmDialog>
  );
}
