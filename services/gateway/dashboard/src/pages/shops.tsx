import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { Link } from 'wouter-preact';
import { call, client, present } from '../api';
import { Badge, DateTime, ErrorMessage, Loading, Notice, PageTitle, Pager, TableRegion } from '../components/common';
import { placeApiError } from '../components/forms';
import { useLoad } from '../hooks';
import { useI18n } from '../i18n';
import type { MerchantShop } from '../types';
import { SHOP_FIELDS, ShopFields, shopBody, type ShopForm } from './shop-form';

export function ShopsPage() {
  const { t } = useI18n();
  const [cursor, setCursor] = useState<string | null>(null);
  const shops = useLoad(() => call(client.GET('/api/v1/shops', { params: { query: present({ limit: '20', cursor }) } })), cursor ?? '');
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<MerchantShop | null>(null);
  return (
    <>
      <div class="page-head">
        <PageTitle title={t.shopsTitle}>{t.shopsTitle}</PageTitle>
        {!creating && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            {t.newShop}
          </button>
        )}
      </div>
      {creating && (
        <CreateShop
          onCreated={(s) => {
            setCreating(false);
            setCreated(s);
            setCursor(null);
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
      {shops.loading && <Loading />}
      <ErrorMessage error={shops.error} onRetry={shops.reload} />
      {shops.data && !shops.loading && (
        <>
          {shops.data.shops.length === 0 ? (
            <p>{t.shopsEmpty}</p>
          ) : (
            <TableRegion label={t.shopsTitle}>
              <table data-testid="shops-table">
                <thead>
                  <tr>
                    <th scope="col">{t.shopName}</th>
                    <th scope="col">{t.status}</th>
                    <th scope="col">{t.feePayer}</th>
                    <th scope="col">{t.webhookUrl}</th>
                    <th scope="col">{t.created}</th>
                  </tr>
                </thead>
                <tbody>
                  {shops.data.shops.map((s) => (
                    <tr key={s.id}>
                      <td>
                        <Link href={`/shops/${s.id}`}>{s.name}</Link>
                      </td>
                      <td>
                        <Badge kind={s.status}>{t.shopStatus[s.status] ?? s.status}</Badge>
                      </td>
                      <td>{t.feePayers[s.fee_payer] ?? s.fee_payer}</td>
                      <td class="mono">{s.webhook_url ?? t.none}</td>
                      <td>
                        <DateTime value={s.created_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableRegion>
          )}
          <Pager cursor={cursor} page={shops.data} onCursor={setCursor} />
        </>
      )}
    </>
  );
}

function CreateShop({ onCreated, onCancel }: { onCreated: (s: MerchantShop) => void; onCancel: () => void }) {
  const { t } = useI18n();
  const [formError, setFormError] = useState<unknown>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ShopForm>({ defaultValues: { name: '', webhook_url: '', fee_payer: 'merchant' } });
  const onValid = async (v: ShopForm) => {
    setFormError(null);
    try {
      onCreated(await call(client.POST('/api/v1/shops', { body: shopBody(v) })));
    } catch (e) {
      setFormError(placeApiError(e, t, setError, SHOP_FIELDS));
    }
  };
  return (
    <form class="card" aria-labelledby="new-shop-title" onSubmit={(e) => void handleSubmit(onValid)(e)} noValidate>
      <h2 id="new-shop-title">{t.newShop}</h2>
      <ShopFields prefix="new" t={t} register={register} errors={errors} />
      <ErrorMessage error={formError} />
      <div class="actions">
        <button type="submit" class="primary" disabled={isSubmitting}>
          {isSubmitting ? t.creating : t.create}
        </button>
        <button type="button" onClick={onCancel}>
          {t.cancel}
        </button>
      </div>
    </form>
  );
}
