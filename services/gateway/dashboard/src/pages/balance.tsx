import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { Link, useSearch } from 'wouter-preact';
import { downloadStatement, listBalanceTransactions, type BalanceFilters } from '../api/money';
import { useI18n } from '../i18n';
import { DateTime, ErrorMessage, Money, PageTitle } from '../kit/common';
import { DataTable } from '../kit/data-table';
import { FilterForm, FilterSelect } from '../kit/filters';
import { saveFile } from '../kit/save-file';
import { useAction, usePagedLoad } from '../kit/use-load';
import { useShops } from '../loaders/shops';

const TYPES = ['payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed', 'payout', 'payout_returned'] as const;
const NO_FILTERS: BalanceFilters = { shop_id: '', type: '' };

/** The shop's ledger as the merchant reads it: every movement of its available balance, newest first, in this mode. */
export function BalancePage() {
  const { t } = useI18n();
  // The shop page links here with its shop chosen.
  const search = useSearch();
  const [initial] = useState<BalanceFilters>(() => ({ ...NO_FILTERS, shop_id: new URLSearchParams(search).get('shop_id') ?? '' }));
  const [filters, setFilters] = useState<BalanceFilters>(initial);
  const shops = useShops();
  const rows = usePagedLoad((cursor) => listBalanceTransactions(filters, cursor), JSON.stringify(filters));
  const { register, handleSubmit, reset } = useForm<BalanceFilters>({ defaultValues: initial });

  return (
    <>
      <PageTitle title={t.balanceTransactionsTitle}>{t.balanceTransactionsTitle}</PageTitle>
      <FilterForm
        onApply={(e) => void handleSubmit(setFilters)(e)}
        onReset={() => {
          reset(NO_FILTERS);
          setFilters(NO_FILTERS);
        }}
      >
        <FilterSelect id="b-shop" name="shop_id" label={t.shop} any={t.anyShop} options={shops.options} register={register} />
        <FilterSelect
          id="b-type"
          name="type"
          label={t.type}
          any={t.anyType}
          options={TYPES.map((ty) => [ty, t.balanceType[ty]])}
          register={register}
        />
      </FilterForm>
      <StatementDownload filters={filters} />
      <DataTable
        label={t.balanceTransactionsTitle}
        testId="balance-table"
        load={rows}
        items={(page) => page.balance_transactions}
        empty={t.balanceTransactionsEmpty}
        paging={rows.paging}
        rowKey={(r) => r.id}
        rowType={(r) => r.type}
        columns={[
          { header: t.created, cell: (r) => <DateTime value={r.created_at} /> },
          { header: t.type, cell: (r) => t.balanceType[r.type] },
          { header: t.shop, cell: (r) => shops.nameOf(r.shop_id) },
          { header: t.amount, num: true, cell: (r) => <Money value={r.amount} /> },
          { header: t.fee, num: true, cell: (r) => <Money value={r.fee} /> },
          { header: t.net, num: true, cell: (r) => <Money value={r.net} /> },
          { header: t.balanceAfter, num: true, cell: (r) => <Money value={r.balance_after} /> },
          {
            header: t.paymentLink,
            cell: (r) =>
              r.payment_link_id ? (
                <Link href={`/links/${r.payment_link_id}`} class="mono small">
                  {r.payment_link_id.slice(0, 8)}
                </Link>
              ) : (
                t.none
              ),
          },
        ]}
      />
    </>
  );
}

/** Saves the statement of the chosen filters as a file, in the dashboard's mode. */
function StatementDownload({ filters }: { filters: BalanceFilters }) {
  const { t } = useI18n();
  const download = useAction(async () => {
    const { blob, filename } = await downloadStatement(filters);
    saveFile(blob, filename);
  });
  return (
    <div class="statement">
      <button type="button" onClick={() => download.run()} disabled={download.busy} aria-busy={download.busy} aria-describedby="statement-hint">
        {download.busy ? t.downloading : t.downloadCsv}
      </button>
      <p class="hint" id="statement-hint">
        {t.downloadCsvHint}
      </p>
      <ErrorMessage error={download.error} />
    </div>
  );
}
