import { useForm } from 'react-hook-form';
import { cancelPayout, rejectPayout } from '../api/payouts';
import { formatRub } from '../format';
import { useI18n } from '../i18n';
import { ConfirmDialog, ShownBesideField } from '../kit/dialog';
import { described, Field } from '../kit/forms';
import { useMode } from '../mode';
import { useMay, useSession } from '../session';
import type { Payout } from '../types';

/** What a row's button asks for: done at once (approve, the simulator), or asked first in a dialog (reject, cancel). */
export type PayoutMove = 'approve' | 'reject' | 'cancel' | 'paid' | 'failed';

/**
 * A payout's buttons, each shown only to a member who may use it (roles.ts) and only in a state the server takes it:
 * approve and reject while it awaits approval (approve not to its maker, whom the server refuses), cancel while it
 * awaits approval or is approved, and in test mode the simulator while it is approved or processing.
 */
export function PayoutButtons({ payout, busy, onChoose }: { payout: Payout; busy: boolean; onChoose: (move: PayoutMove) => void }) {
  const { t, lang } = useI18n();
  const { me } = useSession();
  const may = useMay();
  const { mode } = useMode();
  const awaiting = payout.status === 'pending_approval';
  const own = payout.created_by === me.user_id;
  const buttons: [PayoutMove, string, string?][] = [];
  if (awaiting && may('approve_payouts') && !own) buttons.push(['approve', t.payoutApprove, 'primary']);
  if (awaiting && may('approve_payouts')) buttons.push(['reject', t.payoutReject, 'danger']);
  if ((awaiting || payout.status === 'approved') && may('payouts')) buttons.push(['cancel', t.payoutCancel]);
  if (mode === 'test' && !payout.livemode && (payout.status === 'approved' || payout.status === 'processing') && may('payouts')) {
    buttons.push(['paid', t.payoutSimulatePaid], ['failed', t.payoutSimulateFailed]);
  }
  return (
    <>
      {awaiting && own && <p class="small">{t.payoutYours}</p>}
      {buttons.length === 0 ? (
        !(awaiting && own) && t.none
      ) : (
        <div class="actions" role="group" aria-label={t.payoutActionsOf(formatRub(payout.amount, lang))}>
          {buttons.map(([move, words, kind]) => (
            <button key={move} type="button" class={kind} disabled={busy} onClick={() => onChoose(move)}>
              {words}
            </button>
          ))}
        </div>
      )}
    </>
  );
}

/**
 * Reject (with the reason the server keeps as the payout's `failure_reason`) or cancel, asked first. A refusal (the
 * payout moved meanwhile: 409) stays in the dialog; the page reads its lists again when the dialog closes.
 */
export function PayoutDialog({
  payout,
  move,
  onDone,
  onClose,
}: {
  payout: Payout;
  move: 'reject' | 'cancel';
  onDone: (p: Payout) => void;
  onClose: () => void;
}) {
  const { t, lang } = useI18n();
  const amount = formatRub(payout.amount, lang);
  const {
    register,
    trigger,
    getValues,
    formState: { errors },
  } = useForm<{ reason: string }>({ defaultValues: { reason: '' } });
  const confirm = async () => {
    if (move === 'cancel') {
      onDone(await cancelPayout(payout.id));
      return;
    }
    if (!(await trigger('reason'))) throw new ShownBesideField();
    onDone(await rejectPayout(payout.id, getValues('reason').trim()));
  };
  return (
    <ConfirmDialog
      title={move === 'reject' ? t.payoutRejectTitle : t.payoutCancelTitle}
      body={move === 'reject' ? t.payoutRejectConfirm(amount) : t.payoutCancelConfirm(amount)}
      confirmLabel={move === 'reject' ? t.payoutRejectYes : t.payoutCancelYes}
      danger
      onConfirm={confirm}
      onClose={onClose}
    >
      {move === 'reject' && (
        <Field id="payout-reason" label={t.payoutRejectReason} hint={t.payoutRejectReasonHint} error={errors.reason}>
          <textarea
            id="payout-reason"
            rows={3}
            {...described('payout-reason', true, errors.reason)}
            {...register('reason', {
              validate: (v) => v.trim().length > 0 || t.required,
              maxLength: { value: 500, message: t.tooLong(500) },
            })}
          />
        </Field>
      )}
    </ConfirmDialog>
  );
}
