import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { Link, useSearch } from 'wouter-preact';
import { DateTime, ErrorMessage, Loading, Money, PageTitle, Pager, TableRegion } from '../components/common';
import { useLoad } from '../hooks';
import { useI18n } from '../i18n';
import { downloadStatement, listBalanceTransactions, type BalanceFilters } from '../money-api';
import { loadShops } from './links';

const TYPES = ['payment', 'late_payment', 'refund', 'refund_failed'] as const;
const NO_FILTERS: BalanceFilters = { shop_id: '', type: '' };

/** The shop's ledger as the merchant reads it: every movement of its available balance, newest first, in this mode. */
export function BalancePage() {
  const { t } = useI18n();
  // The shop page links here with its shop chosen.
  const search = useSearch();
  const [initial] = useState<BalanceFilters>(() => ({ ...NO_FILTERS, shop_id: new URLSearchParams(search).get('shop_id') ?? '' }));
  const [filters, setFilters] = useState<BalanceFilters>(initial);
  const [cursor, setCursor] = useState<string | null>(null);
  const shops = useLoad(loadShops, 'shops');
  const rows = useLoad(() => listBalanceTransactions(filters, cursor), JSON.stringify([filters, cursor]));
  const { register, handleSubmit, reset } = useForm<BalanceFilters>({ defaultValues: initial });
  const apply = (values: BalanceFilters) => {
    setFilters(values);
    setCursor(null);
  };
  const shopName = (id: number): string => shops.data?.shops.find((s) => s.id === id)?.name ?? `#${id}`;

  return (
    <>
      <PageTitle title={t.balanceTransactionsTitle}>{t.balanceTransactionsTitle}</PageTitle>
      <form class="filters" aria-label={t.filters} onSubmit={(e) => void handleSubmit(apply)(e)}>
        <div class="field">
          <label for="b-shop">{t.shop}</label>
          <select id="b-shop" {...register('shop_id')}>
            <option value="">{t.anyShop}</option>
            {shops.data?.shops.map((s) => (
              <option key={s.id} value={String(s.id)}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="b-type">{t.type}</label>
          <select id="b-type" {...register('type')}>
            <option value="">{t.anyType}</option>
            {TYPES.map((type) => (
              <option key={type} value={type}>
                {t.balanceType[type]}
              </option>
            ))}
          </select>
        </div>
        <div class="actions">
          <button type="submit" class="primary">
            {t.apply}
          </button>
          <button
            type="button"
            onClick={() => {
              reset(NO_FILTERS);
              apply(NO_FILTERS);
            }}
          >
            {t.reset}
          </button>
        </div>
      </form>
      <StatementDownload filters={filters} />
      {rows.loading && <Loading />}
      <ErrorMessage error={rows.error} onRetry={rows.reload} />
      {rows.data && !rows.loading && (
        <>
          {rows.data.balance_transactions.length === 0 ? (
            <p>{t.balanceTransactionsEmpty}</p>
          ) : (
            <TableRegion label={t.balanceTransactionsTitle}>
              <table data-testid="balance-table">
                <thead>
                  <tr>
                    <th scope="col">{t.created}</th>
                    <th scope="col">{t.type}</th>
                    <th scope="col">{t.shop}</th>
                    <th scope="col" class="num">
                      {t.amount}
                    </th>
                    <th scope="col" class="num">
                      {t.fee}
                    </th>
                    <th scope="col" class="num">
                      {t.net}
                    </th>
                    <th scope="col" class="num">
                      {t.balanceAfter}
                    </th>
                    <th scope="col">{t.paymentLink}</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.data.balance_transactions.map((r) => (
                    <tr key={r.id} data-type={r.type}>
                      <td>
                        <DateTime value={r.created_at} />
                      </td>
                      <td>{t.balanceType[r.type] ?? r.type}</td>
                      <td>{shopName(r.shop_id)}</td>
                      <td class="num">
                        <Money value={r.amount} />
                      </td>
                      <td class="num">
                        <Money value={r.fee} />
                      </td>
                      <td class="num">
                        <Money value={r.net} />
                      </td>
                      <td class="num">
                        <Money value={r.balance_after} />
                      </td>
                      <td>
                        {r.payment_link_id ? (
                          <Link href={`/links/${r.payment_link_id}`} class="mono small">
                            {r.payment_link_id.slice(0, 8)}
                          </Link>
                        ) : (
                          t.none
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableRegion>
          )}
          <Pager cursor={cursor} page={rows.data} onCursor={setCursor} />
        </>
      )}
    </>
  );
}

/** Saves the statement of the chosen filters as a file, in the dashboard's mode. */
function StatementDownload({ filters }: { filters: BalanceFilters }) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      const { blob, filename } = await downloadStatement(filters);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = filename;
      a.click();
      // The browser has taken the file once the click is handled; the object URL would otherwise live as long as the page.
      setTimeout(() => URL.revokeObjectURL(url), 0);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="statement">
      <button type="button" onClick={() => void download()} disabled={busy} aria-busy={busy} aria-describedby="statement-hint">
        {busy ? t.downloading : t.downloadCsv}
      </button>
      <p class="hint" id="statement-hint">
        {t.downloadCsvHint}
      </p>
      <ErrorMessage error={error} />
    </div>
  );
}
