import { getNextPayout } from '../api/payout-schedule';
import { formatRub } from '../format';
import { useI18n } from '../i18n';
import { DateTime, ErrorMessage, Money } from '../kit/common';
import { Facts } from '../kit/fields';
import { useLoad } from '../kit/use-load';

/**
 * The Home page's "next payout" slot (docs/payouts.md, "Automatic payouts"): for a scheduled shop, when its next payout
 * is due (10:00 Moscow time) and what it would be if made now, or that the minimum is not reached; else "manual".
 */
export function NextPayout({ shopId }: { shopId: number }) {
  const { t, lang } = useI18n();
  const next = useLoad(() => getNextPayout(shopId), String(shopId));
  const n = next.data;
  return (
    <>
      <ErrorMessage error={next.error} onRetry={next.reload} />
      {n && (
        <Facts
          testId="next-payout"
          facts={
            n.scheduled_at === null
              ? [{ label: t.nextPayout, value: t.nextPayoutManual }]
              : [
                  { label: t.nextPayout, value: <DateTime value={n.scheduled_at} /> },
                  {
                    label: t.nextPayoutAmount,
                    value: n.amount !== null ? <Money value={n.amount} /> : t.nextPayoutBelowMinimum(formatRub(n.minimum ?? '0.00', lang)),
                  },
                ]
          }
        />
      )}
    </>
  );
}
