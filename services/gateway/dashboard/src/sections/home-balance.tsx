import { Link } from 'wouter-preact';
import { getBalance } from '../api/money';
import { useI18n } from '../i18n';
import { ErrorMessage, Loading, Money } from '../kit/common';
import { Facts } from '../kit/fields';
import { useLoad } from '../kit/use-load';
import { useMode } from '../mode';
import { NextPayout } from './next-payout';

/** The chosen shop's balance in the dashboard's mode, and the next payout's slot. */
export function HomeBalance({ shopId }: { shopId: number }) {
  const { t } = useI18n();
  const { mode } = useMode();
  const loaded = useLoad(() => getBalance(shopId), String(shopId));
  return (
    <section class="card" aria-labelledby="home-balance-title" data-testid="home-balance">
      <h2 id="home-balance-title">{t.balanceOfMode[mode]}</h2>
      {loaded.loading && <Loading />}
      <ErrorMessage error={loaded.error} onRetry={loaded.reload} />
      {loaded.data && (
        <Facts
          facts={[
            // What may be paid out now, and what waits for the hold to pass (docs/payouts.md, "Available and pending").
            { label: t.homeAvailable, value: <Money value={loaded.data.available} />, testId: 'home-balance-amount' },
            { label: t.homePending, value: <Money value={loaded.data.pending} />, testId: 'home-balance-pending' },
          ]}
        />
      )}
      <NextPayout shopId={shopId} />
      <p>
        <Link href={`/balance?shop_id=${shopId}`}>{t.balanceTransactionsOfShop}</Link>
      </p>
    </section>
  );
}
