import { useState } from 'preact/hooks';
import { useI18n } from '../i18n';
import { ErrorMessage, Loading, PageTitle } from '../kit/common';
import { useShops } from '../loaders/shops';
import { HomeBalance } from '../sections/home-balance';
import { SummaryCharts } from '../sections/summary-charts';

/**
 * Home, the landing page of a member who reads money (docs/reports.md): the last 30 days at a glance of one shop or of
 * all, in the dashboard's mode, and the chosen shop's balance. An account of one shop sees that shop at once.
 */
export function HomePage() {
  const { t } = useI18n();
  const shops = useShops();
  const [chosen, setChosen] = useState<string | null>(null);
  const only = shops.list.length === 1 ? shops.list[0] : undefined;
  const shopId = chosen ?? (only ? String(only.id) : '');
  return (
    <>
      <PageTitle title={t.homeTitle}>{t.homeTitle}</PageTitle>
      {shops.loading && <Loading />}
      <ErrorMessage error={shops.error} onRetry={shops.reload} />
      {shops.data && (
        <>
          {shops.list.length > 1 && (
            <div class="field home-shop">
              <label for="home-shop">{t.shop}</label>
              <select id="home-shop" value={shopId} onChange={(e) => setChosen(e.currentTarget.value)}>
                <option value="">{t.homeAllShops}</option>
                {shops.options.map(([id, name]) => (
                  <option key={id} value={id}>
                    {name}
                  </option>
                ))}
              </select>
            </div>
          )}
          {shopId === '' ? <p class="hint">{t.homeChooseShopForBalance}</p> : <HomeBalance key={shopId} shopId={Number(shopId)} />}
          <SummaryCharts key={shopId} shopId={shopId} />
        </>
      )}
    </>
  );
}
