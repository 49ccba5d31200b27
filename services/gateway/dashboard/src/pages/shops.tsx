import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { createShop, listShops } from '../api/shops';
import { useI18n } from '../i18n';
import { Badge, DateTime, Notice, PageTitle } from '../kit/common';
import { DataTable } from '../kit/data-table';
import { usePagedLoad } from '../kit/use-load';
import { ShopForm } from '../sections/shop-fields';
import type { MerchantShop } from '../types';
import { Allowed } from '../session';

export function ShopsPage() {
  const { t } = useI18n();
  const shops = usePagedLoad(listShops, 'shops');
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<MerchantShop | null>(null);
  return (
    <>
      <div class="page-head">
        <PageTitle title={t.shopsTitle}>{t.shopsTitle}</PageTitle>
        {!creating && (
          <Allowed to="integrate">
            <button type="button" class="primary" onClick={() => setCreating(true)}>
              {t.newShop}
            </button>
          </Allowed>
        )}
      </div>
      {creating && (
        <ShopForm
          id="new"
          title={t.newShop}
          save={createShop}
          submitLabel={t.create}
          onSaved={(s) => {
            setCreating(false);
            setCreated(s);
            shops.paging.onCursor(null);
            shops.reload();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      {created && (
        <Notice>
          {t.shopCreated} <Link href={`/shops/${created.id}`}>{created.name}</Link>
        </Notice>
      )}
      <DataTable
        label={t.shopsTitle}
        testId="shops-table"
        load={shops}
        items={(page) => page.shops}
        empty={t.shopsEmpty}
        paging={shops.paging}
        rowKey={(s) => s.id}
        columns={[
          { header: t.shopName, cell: (s) => <Link href={`/shops/${s.id}`}>{s.name}</Link> },
          { header: t.status, cell: (s) => <Badge kind={s.status}>{t.shopStatus[s.status]}</Badge> },
          { header: t.feePayer, cell: (s) => t.feePayers[s.fee_payer] },
          { header: t.webhookUrl, cell: (s) => <span class="mono">{s.webhook_url ?? t.none}</span> },
          { header: t.created, cell: (s) => <DateTime value={s.created_at} /> },
        ]}
      />
    </>
  );
}
