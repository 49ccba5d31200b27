import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { Link } from 'wouter-preact';
import { listLinks, type LinkFilters } from '../api/links';
import { useI18n } from '../i18n';
import { Badge, DateTime, Money, PageTitle, TestBadge } from '../kit/common';
import { DataTable } from '../kit/data-table';
import { FilterForm, FilterSelect } from '../kit/filters';
import { usePagedLoad } from '../kit/use-load';
import { useShops } from '../loaders/shops';
import { Allowed } from '../session';

const STATUSES = ['pending', 'paid', 'expired', 'canceled', 'failed'] as const;
const NO_FILTERS: LinkFilters = { status: '', shop_id: '', order_id: '' };

export function LinksPage() {
  const { t } = useI18n();
  const [filters, setFilters] = useState<LinkFilters>(NO_FILTERS);
  const shops = useShops();
  const links = usePagedLoad((cursor) => listLinks(filters, cursor), JSON.stringify(filters));
  const { register, handleSubmit, reset } = useForm<LinkFilters>({ defaultValues: NO_FILTERS });
  const apply = (values: LinkFilters) => setFilters({ ...values, order_id: values.order_id.trim() });

  return (
    <>
      <div class="page-head">
        <PageTitle title={t.linksTitle}>{t.linksTitle}</PageTitle>
        <Allowed to="operate_links">
          <Link href="/links/new" class="button primary">
            {t.newLink}
          </Link>
        </Allowed>
      </div>
      <FilterForm
        onApply={(e) => void handleSubmit(apply)(e)}
        onReset={() => {
          reset(NO_FILTERS);
          apply(NO_FILTERS);
        }}
      >
        <FilterSelect
          id="f-status"
          name="status"
          label={t.status}
          any={t.anyStatus}
          options={STATUSES.map((s) => [s, t.linkStatus[s]])}
          register={register}
        />
        <FilterSelect id="f-shop" name="shop_id" label={t.shop} any={t.anyShop} options={shops.options} register={register} />
        <div class="field">
          <label for="f-order">{t.orderId}</label>
          <input id="f-order" type="search" maxLength={128} {...register('order_id')} />
        </div>
      </FilterForm>
      <DataTable
        label={t.linksTitle}
        testId="links-table"
        load={links}
        items={(page) => page.payment_links}
        empty={t.linksEmpty}
        paging={links.paging}
        rowKey={(l) => l.id}
        columns={[
          {
            header: t.created,
            cell: (l) => (
              <Link href={`/links/${l.id}`}>
                <DateTime value={l.created_at} />
              </Link>
            ),
          },
          { header: t.orderId, cell: (l) => l.order_id ?? t.none },
          { header: t.shop, cell: (l) => shops.nameOf(l.shop_id) },
          { header: t.amount, num: true, cell: (l) => <Money value={l.amount} /> },
          {
            header: t.status,
            cell: (l) => (
              <>
                <Badge kind={l.status}>{t.linkStatus[l.status]}</Badge> <TestBadge livemode={l.livemode} />
              </>
            ),
          },
        ]}
      />
    </>
  );
}
