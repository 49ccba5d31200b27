import { useState } from 'preact/hooks';
import { useForm, type Path } from 'react-hook-form';
import { createPayoutDestination, deletePayoutDestination, listPayoutDestinations } from '../api/payouts';
import { useI18n } from '../i18n';
import { Badge, DateTime, ErrorMessage, Notice, PageTitle, TestBadge } from '../kit/common';
import { DataTable } from '../kit/data-table';
import { ConfirmDialog } from '../kit/dialog';
import { described, Field, placeFieldInWords, TextField } from '../kit/forms';
import { useLoad } from '../kit/use-load';
import { NETWORK_NAMES, NETWORKS } from '../sections/shop-methods';
import { Allowed, useMay } from '../session';
import type { CreatePayoutDestinationBody, CryptoNetwork, PayoutDestination } from '../types';

interface DestinationForm {
  type: PayoutDestination['type'];
  bank_account: { recipient_name: string; inn: string; kpp: string; bik: string; account: string };
  crypto_address: { network: CryptoNetwork; address: string };
}

const EMPTY: DestinationForm = {
  type: 'bank_account',
  bank_account: { recipient_name: '', inn: '', kpp: '', bik: '', account: '' },
  crypto_address: { network: 'USDT-TRC20', address: '' },
};

/** The fields the API names in its validation_failed (`details[].field`), as the form names them too. */
const FIELDS = [
  'bank_account.recipient_name',
  'bank_account.inn',
  'bank_account.kpp',
  'bank_account.bik',
  'bank_account.account',
  'crypto_address.network',
  'crypto_address.address',
] as const satisfies readonly Path<DestinationForm>[];

const bodyOf = (v: DestinationForm): CreatePayoutDestinationBody =>
  v.type === 'bank_account'
    ? {
        type: 'bank_account',
        bank_account: {
          recipient_name: v.bank_account.recipient_name.trim(),
          inn: v.bank_account.inn.trim(),
          kpp: v.bank_account.kpp.trim() === '' ? null : v.bank_account.kpp.trim(),
          bik: v.bank_account.bik.trim(),
          account: v.bank_account.account.trim(),
        },
      }
    : { type: 'crypto_address', crypto_address: { network: v.crypto_address.network, address: v.crypto_address.address.trim() } };

/**
 * Where payouts go (docs/payouts.md, "Destinations"), in this mode: the list with each one's cool-down (pending until
 * `active_at`), a new bank account or crypto address (step-up, asked by the API layer), and delete. The server judges
 * the details (the INN's and the account's check digits, the address's checksum); its complaint about a field is shown
 * beside it in our words.
 */
export function PayoutDestinationsPage() {
  const { t } = useI18n();
  const may = useMay();
  const list = useLoad(listPayoutDestinations, 'destinations');
  const [notice, setNotice] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<PayoutDestination | null>(null);
  return (
    <>
      <PageTitle title={t.destinationsTitle}>{t.destinationsTitle}</PageTitle>
      <p class="hint">{may('payouts') ? t.destinationsHint : `${t.destinationsHint} ${t.destinationsReadOnly}`}</p>
      {notice && <Notice>{notice}</Notice>}
      <DataTable
        label={t.destinationsTitle}
        testId="destination-table"
        load={list}
        items={(d) => d.payout_destinations}
        empty={t.destinationsEmpty}
        rowKey={(d) => d.id}
        rowType={(d) => d.status}
        columns={[
          { header: t.destinationTypeLabel, cell: (d) => t.destinationType[d.type] },
          { header: t.destinationDetails, cell: (d) => <span class="mono">{d.masked}</span> },
          { header: t.destinationNetwork, cell: (d) => d.network ?? t.none },
          {
            header: t.status,
            cell: (d) => (
              <>
                <Badge kind={d.status}>{t.destinationStatus[d.status]}</Badge> <TestBadge livemode={d.livemode} />
              </>
            ),
          },
          { header: t.destinationActiveFrom, cell: (d) => <DateTime value={d.active_at} /> },
          { header: t.created, cell: (d) => <DateTime value={d.created_at} /> },
          ...(may('payouts')
            ? [
                {
                  header: t.actions,
                  cell: (d: PayoutDestination) => (
                    <button
                      type="button"
                      class="danger"
                      aria-label={t.destinationDeleteOf(d.masked)}
                      onClick={() => {
                        setNotice(null);
                        setDeleting(d);
                      }}
                    >
                      {t.destinationDelete}
                    </button>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Allowed to="payouts">
        <NewDestinationForm
          onAdded={(d) => {
            setNotice(d.status === 'active' ? t.destinationAdded : t.destinationAddedPending);
            list.reload();
          }}
        />
      </Allowed>
      {deleting && (
        <ConfirmDialog
          title={t.destinationDeleteTitle}
          body={t.destinationDeleteConfirm(deleting.masked)}
          confirmLabel={t.destinationDeleteYes}
          danger
          onConfirm={async () => {
            await deletePayoutDestination(deleting.id);
            setDeleting(null);
            setNotice(t.destinationDeleted);
            list.reload();
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </>
  );
}

function NewDestinationForm({ onAdded }: { onAdded: (d: PayoutDestination) => void }) {
  const { t } = useI18n();
  const form = useForm<DestinationForm>({ defaultValues: EMPTY });
  const [formError, setFormError] = useState<unknown>(null);
  const {
    register,
    watch,
    formState: { errors, isSubmitting },
  } = form;
  const type = watch('type');
  const onSubmit = form.handleSubmit(async (v) => {
    setFormError(null);
    try {
      onAdded(await createPayoutDestination(bodyOf(v)));
      form.reset(EMPTY);
    } catch (e) {
      // Each field the server refused, beside it in our words (it judges in English); whatever is left, for the form.
      let rest: unknown = e;
      for (const field of FIELDS) rest = rest === null ? null : placeFieldInWords(rest, field, t.destinationFieldInvalid[field], form.setError);
      setFormError(rest);
    }
  });
  const bank = errors.bank_account;
  const required = { validate: (v: string) => v.trim().length > 0 || t.required };
  return (
    <form class="card" aria-labelledby="destination-new-title" onSubmit={(e) => void onSubmit(e)} noValidate>
      <h2 id="destination-new-title">{t.destinationNew}</h2>
      <fieldset class="field mode-choice">
        <legend>{t.destinationTypeLabel}</legend>
        {(['bank_account', 'crypto_address'] as const).map((kind) => (
          <label key={kind}>
            <input type="radio" value={kind} {...register('type')} />
            {t.destinationType[kind]}
          </label>
        ))}
      </fieldset>
      {type === 'bank_account' ? (
        <>
          <TextField
            id="dest-recipient"
            label={t.destinationRecipient}
            hint={t.destinationRecipientHint}
            error={bank?.recipient_name}
            field={register('bank_account.recipient_name', { ...required, maxLength: { value: 160, message: t.tooLong(160) } })}
          />
          <TextField
            id="dest-inn"
            label={t.destinationInn}
            hint={t.destinationInnHint}
            inputMode="numeric"
            error={bank?.inn}
            field={register('bank_account.inn', required)}
          />
          <TextField
            id="dest-kpp"
            label={t.destinationKpp}
            hint={t.destinationKppHint}
            inputMode="numeric"
            error={bank?.kpp}
            field={register('bank_account.kpp')}
          />
          <TextField
            id="dest-bik"
            label={t.destinationBik}
            hint={t.destinationBikHint}
            inputMode="numeric"
            error={bank?.bik}
            field={register('bank_account.bik', required)}
          />
          <TextField
            id="dest-account"
            label={t.destinationAccount}
            hint={t.destinationAccountHint}
            inputMode="numeric"
            error={bank?.account}
            field={register('bank_account.account', required)}
          />
        </>
      ) : (
        <>
          <Field id="dest-network" label={t.destinationNetwork} error={errors.crypto_address?.network}>
            <select id="dest-network" {...described('dest-network', false, errors.crypto_address?.network)} {...register('crypto_address.network')}>
              {NETWORKS.map((n) => (
                <option key={n} value={n}>
                  {NETWORK_NAMES[n]}
                </option>
              ))}
            </select>
          </Field>
          <TextField
            id="dest-address"
            label={t.destinationAddress}
            error={errors.crypto_address?.address}
            field={register('crypto_address.address', { ...required, maxLength: { value: 128, message: t.tooLong(128) } })}
          />
        </>
      )}
      <ErrorMessage error={formError} />
      <button type="submit" class="primary" disabled={isSubmitting} aria-busy={isSubmitting}>
        {isSubmitting ? t.creating : t.destinationAdd}
      </button>
    </form>
  );
}
