import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { setPayoutSchedule } from '../api/payout-schedule';
import { listPayoutDestinations } from '../api/payouts';
import { useI18n } from '../i18n';
import { ErrorMessage, Money } from '../kit/common';
import { Facts } from '../kit/fields';
import { described, Field, placeApiError } from '../kit/forms';
import { useLoad } from '../kit/use-load';
import { useMode } from '../mode';
import { useMay } from '../session';
import type { MerchantShop, PayoutInterval } from '../types';

interface ScheduleForm {
  interval: PayoutInterval;
  destination_id: string;
  minimum: string;
}

const INTERVALS: readonly PayoutInterval[] = ['manual', 'daily', 'weekly'];
/** 100.00 and up, at most two decimals (the server also holds PAYOUT_MAX). */
const MINIMUM = /^\d{3,9}([.,]\d{1,2})?$/;

/**
 * The shop's automatic payouts in the dashboard's mode (docs/payouts.md, "Automatic payouts"): every member who reads
 * money sees them; the roles that make payouts change them (the server asks for the second factor: step-up).
 */
export function PayoutScheduleSection({ shop, onSaved }: { shop: MerchantShop; onSaved: (s: MerchantShop) => void }) {
  const { t } = useI18n();
  const { mode } = useMode();
  const may = useMay()('payouts');
  const schedule = shop.payout_schedule;
  return (
    <section class="card" aria-labelledby="payout-schedule-title" data-testid="payout-schedule">
      <h2 id="payout-schedule-title">{t.payoutScheduleTitle[mode]}</h2>
      <p class="hint">{t.payoutScheduleHint}</p>
      {may ? (
        <ScheduleEditor key={`${shop.id}-${mode}`} shop={shop} onSaved={onSaved} />
      ) : (
        <Facts
          facts={[
            { label: t.payoutInterval, value: t.payoutIntervals[schedule.interval] },
            schedule.minimum !== null && { label: t.payoutMinimum, value: <Money value={schedule.minimum} /> },
          ]}
        />
      )}
    </section>
  );
}

function ScheduleEditor({ shop, onSaved }: { shop: MerchantShop; onSaved: (s: MerchantShop) => void }) {
  const { t } = useI18n();
  const destinations = useLoad(listPayoutDestinations, 'destinations');
  const current = shop.payout_schedule;
  const {
    register,
    handleSubmit,
    setError,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<ScheduleForm>({
    defaultValues: { interval: current.interval, destination_id: current.destination_id ?? '', minimum: current.minimum ?? '' },
  });
  const [formError, setFormError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const manual = watch('interval') === 'manual';
  const save = async (v: ScheduleForm) => {
    setFormError(null);
    setSaved(false);
    try {
      const body = manual
        ? { interval: v.interval, destination_id: null, minimum: null }
        : { interval: v.interval, destination_id: v.destination_id, minimum: v.minimum.trim().replace(',', '.') };
      onSaved(await setPayoutSchedule(shop.id, body));
      setSaved(true);
    } catch (e) {
      setFormError(placeApiError(e, t, setError, ['destination_id', 'minimum']));
    }
  };
  const list = destinations.data?.payout_destinations ?? [];
  return (
    <form onSubmit={(e) => void handleSubmit(save)(e)} noValidate>
      <Field id="payout-interval" label={t.payoutInterval} error={errors.interval}>
        <select id="payout-interval" {...described('payout-interval', false, errors.interval)} {...register('interval')}>
          {INTERVALS.map((i) => (
            <option key={i} value={i}>
              {t.payoutIntervals[i]}
            </option>
          ))}
        </select>
      </Field>
      {!manual && (
        <>
          <ErrorMessage error={destinations.error} onRetry={destinations.reload} />
          <Field id="destination_id" label={t.payoutSchedulePayTo} hint={t.payoutDestinationHint} error={errors.destination_id}>
            <select
              id="destination_id"
              {...described('destination_id', true, errors.destination_id)}
              {...register('destination_id', { validate: (v) => v !== '' || t.payoutDestinationNeeded })}
            >
              <option value="">{t.payoutDestinationChoose}</option>
              {list.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.masked} · {t.payoutDestinationTypes[d.type]}
                  {d.status === 'pending' ? ` · ${t.payoutDestinationPending}` : ''}
                </option>
              ))}
            </select>
          </Field>
          <Field id="minimum" label={t.payoutMinimum} hint={t.payoutMinimumHint} error={errors.minimum}>
            <input
              id="minimum"
              inputMode="decimal"
              autocomplete="off"
              {...described('minimum', true, errors.minimum)}
              {...register('minimum', {
                validate: (v) => (MINIMUM.test(v.trim()) && Number(v.trim().replace(',', '.')) >= 100) || t.payoutMinimumBad,
              })}
            />
          </Field>
        </>
      )}
      <ErrorMessage error={formError} />
      <div class="actions">
        <button type="submit" class="primary" disabled={isSubmitting} aria-busy={isSubmitting}>
          {t.payoutScheduleSave}
        </button>
        {saved && <span role="status">{t.payoutScheduleSaved}</span>}
      </div>
    </form>
  );
}
