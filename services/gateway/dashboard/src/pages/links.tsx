import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { Link } from 'wouter-preact';
import { call, client, present } from '../api';
import { Badge, DateTime, ErrorMessage, Loading, Money, PageTitle, Pager, TableRegion, TestBadge } from '../components/common';
import { useLoad } from '../hooks';
import { useI18n } from '../i18n';
import type { MerchantShopPage } from '../types';

const STATUSES = ['pending', 'paid', 'expired', 'canceled', 'failed'] as const;

interface Filters {
  status: '' | (typeof STATUSES)[number];
  shop_id: string;
  order_id: string;
}
const NO_FILTERS: Filters = { status: '', shop_id: '', order_id: '' };

/** The merchant's shops for pickers (one page of 100 is every shop a merchant is expected to have). */
export const loadShops = (): Promise<MerchantShopPage> => call(client.GET('/api/v1/shops', { params: { query: { limit: '100' } } }));

export function LinksPage() {
  const { t } = useI18n();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [cursor, setCursor] = useState<string | null>(null);
  const shops = useLoad(loadShops, 'shops');
  const links = useLoad(
    () => call(client.GET('/api/v1/payment-links', { params: { query: present({ ...filters, limit: '20', cursor }) } })),
    JSON.stringify([filters, cursor]),
  );
  const { register, handleSubmit, reset } = useForm<Filters>({ defaultValues: NO_FILTERS });
  const apply = (values: Filters) => {
    setFilters({ ...values, order_id: values.order_id.trim() });
    setCursor(null);
  };
  const shopName = (id: number): string => shops.data?.shops.find((s) => s.id === id)?.name ?? `#${id}`;

  return (
    <>
      <div class="page-head">
        <PageTitle title={t.linksTitle}>{t.linksTitle}</PageTitle>
        <Link href="/links/new" class="button primary">
          {t.newLink}
        </Link>
      </div>
      <form class="filters" aria-label={t.filters} onSubmit={(e) => void handleSubmit(apply)(e)}>
        <div class="field">
          <label for="f-status">{t.status}</label>
          <select id="f-status" {...register('status')}>
            <option value="">{t.anyStatus}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t.linkStatus[s]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-shop">{t.shop}</label>
          <select id="f-shop" {...register('shop_id')}>
            <option value="">{t.anyShop}</option>
            {shops.data?.shops.map((s) => (
              <option key={s.id} value={String(s.id)}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-order">{t.orderId}</label>
          <input id="f-order" type="search" maxLength={128} {...register('order_id')} />
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
      {links.loading && <Loading />}
      <ErrorMessage error={links.error} onRetry={links.reload} />
      {links.data && !links.loading && (
        <>
          {links.data.payment_links.length === 0 ? (
            <p>{t.linksEmpty}</p>
          ) : (
            <TableRegion label={t.linksTitle}>
              <table data-testid="links-table">
                <thead>
                  <tr>
                    <th scope="col">{t.created}</th>
                    <th scope="col">{t.orderId}</th>
                    <th scope="col">{t.shop}</th>
                    <th scope="col" class="num">
                      {t.amount}
                    </th>
                    <th scope="col">{t.status}</th>
                  </tr>
                </thead>
                <tbody>
                  {links.data.payment_links.map((l) => (
                    <tr key={l.id}>
                      <td>
                        <Link href={`/links/${l.id}`}>
                          <DateTime value={l.created_at} />
                        </Link>
                      </td>
                      <td>{l.order_id ?? t.none}</td>
                      <td>{shopName(l.shop_id)}</td>
                      <td class="num">
                        <Money value={l.amount} />
                      </td>
                      <td>
                        <Badge kind={l.status}>{t.linkStatus[l.status] ?? l.status}</Badge> <TestBadge livemode={l.livemode} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableRegion>
          )}
          <Pager cursor={cursor} page={links.data} onCursor={setCursor} />
        </>
      )}
    </>
  );
}
