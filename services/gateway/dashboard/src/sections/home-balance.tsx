import { Link } from 'wouter-preact';
import { getBalance } from '../api/money';
import { useI18n } from '../i18n';
import { ErrorMessage, Loading, Money } from '../kit/common';
import { Facts } from '../kit/fields';
import { useLoad } from '../kit/use-load';
import { useMode } from '../mode';
import type { Balance } from '../types';
import { NextPayout } from './next-payout';

/**
 * What the Home page shows of a balance. The payouts work (payouts.md, "Available and pending") adds `pending` beside
 * `available`, `available` then being what may be paid out; before it, `available` is the whole balance. So with
 * `pending` present the page shows what is available and what is pending, else the balance as it is today: it reads
 * right before and after that change lands.
 */
function homeBalance(b: Balance & { pending?: unknown }): { available: string; pending: string } | { balance: string } {
  return typeof b.pending === 'string' ? { available: b.available, pending: b.pending } : { balance: b.available };
}

/** The chosen shop's balance in the dashboard's mode, and the next payout's slot. */
export function HomeBalance({ shopId }: { shopId: number }) {
  const { t } = useI18n();
  const { mode } = useMode();
  const loaded = useLoad(() => getBalance(shopId), String(shopId));
  const shown = loaded.data && homeBalance(loaded.data);
  return (
    <section class="card" aria-labelledby="home-balance-title" data-testid="home-balance">
      <h2 id="home-balance-title">{t.balanceOfMode[mode]}</h2>
      {loaded.loading && <Loading />}
      <ErrorMessage error={loaded.error} onRetry={loaded.reload} />
      {shown && (
        <Facts
          facts={
            'balance' in shown
              ? [{ label: t.homeBalance, value: <Money value={shown.balance} />, testId: 'home-balance-amount' }]
              : [
                  { label: t.homeAvailable, value: <Money value={shown.available} />, testId: 'home-balance-amount' },
                  { label: t.homePending, value: <Money value={shown.pending} />, testId: 'home-balance-pending' },
                ]
          }
        />
      )}
      <NextPayout shopId={shopId} />
      <p>
        <Link href={`/balance?shop_id=${shopId}`}>{t.balanceTransactionsOfShop}</Link>
      </p>
    </section>
  );
}
