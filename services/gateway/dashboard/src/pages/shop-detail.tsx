import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { Link } from 'wouter-preact';
import { call, client } from '../api';
import { Badge, DateTime, ErrorMessage, Loading, Notice, PageTitle } from '../components/common';
import { SecretReveal } from '../components/copy';
import { ConfirmDialog } from '../components/dialog';
import { described, Field, ModeChoice, placeApiError } from '../components/forms';
import { formatBps } from '../format';
import { useLoad } from '../hooks';
import { useI18n } from '../i18n';
import { useMode, type Mode } from '../mode';
import type { MerchantShop, RotatedSecret, WebhookDelivery } from '../types';
import { SHOP_FIELDS, ShopFields, shopBody, type ShopForm } from './shop-form';
import { ShopBalance, WebhookEvents } from './shop-money';

export function ShopDetailPage({ id }: { id: string }) {
  const { t, lang } = useI18n();
  const shop = useLoad(() => call(client.GET('/api/v1/shops/{id}', { params: { path: { id } } })), id);
  const s = shop.data;
  return (
    <>
      <PageTitle title={s?.name ?? t.shopsTitle}>{s?.name ?? t.shopsTitle}</PageTitle>
      <p>
        <Link href="/shops">{t.backToShops}</Link>
      </p>
      {shop.loading && <Loading />}
      <ErrorMessage error={shop.error} onRetry={shop.reload} />
      {s && (
        <>
          <dl class="fields">
            <div>
              <dt>{t.status}</dt>
              <dd>
                <Badge kind={s.status}>{t.shopStatus[s.status] ?? s.status}</Badge>
              </dd>
            </div>
            <div>
              <dt>{t.rates}</dt>
              <dd>
                {t.cryptoRate} {formatBps(s.crypto_bps, lang)} · {t.sbpRate} {formatBps(s.sbp_bps, lang)}
              </dd>
            </div>
            <div>
              <dt>{t.field.id}</dt>
              <dd class="mono">{s.id}</dd>
            </div>
            <div>
              <dt>{t.created}</dt>
              <dd>
                <DateTime value={s.created_at} />
              </dd>
            </div>
          </dl>
          <ShopBalance shopId={s.id} />
          <Settings shop={s} onSaved={shop.setData} />
          <WebhookEvents shop={s} onSaved={shop.setData} />
          <WebhookSecret shop={s} onRotated={shop.reload} />
          <TestWebhook shopId={s.id} />
          <CashierKey shopId={s.id} />
        </>
      )}
    </>
  );
}

function Settings({ shop, onSaved }: { shop: MerchantShop; onSaved: (s: MerchantShop) => void }) {
  const { t } = useI18n();
  const [formError, setFormError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ShopForm>({ defaultValues: { name: shop.name, webhook_url: shop.webhook_url ?? '', fee_payer: shop.fee_payer } });
  const onValid = async (v: ShopForm) => {
    setFormError(null);
    setSaved(false);
    try {
      onSaved(await call(client.PATCH('/api/v1/shops/{id}', { params: { path: { id: String(shop.id) } }, body: shopBody(v) })));
      setSaved(true);
    } catch (e) {
      setFormError(placeApiError(e, t, setError, SHOP_FIELDS));
    }
  };
  return (
    <form class="card" aria-labelledby="settings-title" onSubmit={(e) => void handleSubmit(onValid)(e)} noValidate>
      <h2 id="settings-title">{t.settings}</h2>
      <ShopFields prefix="shop" t={t} register={register} errors={errors} />
      <ErrorMessage error={formError} />
      <div class="actions">
        <button type="submit" class="primary" disabled={isSubmitting}>
          {t.save}
        </button>
        {saved && <span role="status">{t.saved}</span>}
      </div>
    </form>
  );
}

interface RotateForm {
  overlap_minutes: string;
}

function WebhookSecret({ shop, onRotated }: { shop: MerchantShop; onRotated: () => void }) {
  const { t } = useI18n();
  const [confirming, setConfirming] = useState<number | null>(null);
  const [secret, setSecret] = useState<RotatedSecret | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<RotateForm>({ defaultValues: { overlap_minutes: '1440' } });
  const [formError, setFormError] = useState<unknown>(null);
  const rotate = async () => {
    try {
      setSecret(
        await call(
          client.POST('/api/v1/shops/{id}/webhook-secret/rotate', {
            params: { path: { id: String(shop.id) } },
            body: { overlap_minutes: confirming ?? undefined },
          }),
        ),
      );
      setConfirming(null);
    } catch (e) {
      const left = placeApiError(e, t, setError, ['overlap_minutes']);
      setConfirming(null);
      setFormError(left);
    }
  };
  return (
    <section class="card" aria-labelledby="secret-section-title">
      <h2 id="secret-section-title">{t.webhookSecretTitle}</h2>
      <p>{shop.webhook_secret_set ? t.webhookSecretSet : t.webhookSecretNotSet}</p>
      {shop.previous_secret_valid_until && (
        <p>
          {t.previousValidUntil} <DateTime value={shop.previous_secret_valid_until} />
        </p>
      )}
      {secret ? (
        <SecretReveal
          title={t.webhookSecretTitle}
          secrets={[
            { id: 'webhook-secret', label: t.webhookSecret, value: secret.webhook_secret },
            { id: 'standard-webhooks-secret', label: t.standardWebhooksSecret, value: secret.standard_webhooks_secret },
          ]}
          onDone={() => {
            setSecret(null);
            onRotated();
          }}
        />
      ) : (
        <form
          onSubmit={(e) =>
            void handleSubmit((v) => {
              setFormError(null);
              setConfirming(Number(v.overlap_minutes));
            })(e)
          }
          noValidate
        >
          <Field id="overlap_minutes" label={t.overlapMinutes} hint={t.overlapHint} error={errors.overlap_minutes}>
            <input
              id="overlap_minutes"
              inputMode="numeric"
              {...described('overlap_minutes', true, errors.overlap_minutes)}
              {...register('overlap_minutes', { validate: (v) => (/^\d{1,4}$/.test(v.trim()) && Number(v) <= 4320) || t.badInteger(0, 4320) })}
            />
          </Field>
          <ErrorMessage error={formError} />
          <button type="submit">{t.rotateSecret}</button>
        </form>
      )}
      {confirming !== null && (
        <ConfirmDialog
          title={t.rotateSecret}
          body={t.rotateConfirm}
          confirmLabel={t.rotateYes}
          onConfirm={rotate}
          onClose={() => setConfirming(null)}
        />
      )}
    </section>
  );
}

function TestWebhook({ shopId }: { shopId: number }) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState<WebhookDelivery | null>(null);
  const send = async () => {
    setBusy(true);
    setError(null);
    setSent(null);
    try {
      setSent(await call(client.POST('/api/v1/shops/{id}/webhook-test', { params: { path: { id: String(shopId) } }, body: {} })));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="test-webhook-title">
      <h2 id="test-webhook-title">{t.testWebhook}</h2>
      <button type="button" onClick={() => void send()} disabled={busy} aria-busy={busy}>
        {t.testWebhook}
      </button>
      {sent && <Notice>{t.testWebhookSent(t.deliveryStatus[sent.status] ?? sent.status)}</Notice>}
      <ErrorMessage error={error} />
    </section>
  );
}

/** A shop has one cashier key per mode (test-mode.md); the merchant picks which one to reissue, and sees which it got. */
function CashierKey({ shopId }: { shopId: number }) {
  const { t } = useI18n();
  const [mode, setMode] = useState<Mode>(useMode().mode);
  const [confirming, setConfirming] = useState(false);
  const [key, setKey] = useState<{ cashier_key: string; mode: Mode } | null>(null);
  const reissue = async () => {
    const res = await call(client.POST('/api/v1/shops/{id}/cashier-key/reissue', { params: { path: { id: String(shopId) } }, body: { mode } }));
    setConfirming(false);
    setKey(res);
  };
  return (
    <section class="card" aria-labelledby="cashier-title">
      <h2 id="cashier-title">{t.cashierKeyTitle}</h2>
      {key ? (
        <SecretReveal
          title={t.cashierKeyOf[key.mode] ?? t.cashierKey}
          secrets={[{ id: 'cashier-key', label: t.cashierKeyOf[key.mode] ?? t.cashierKey, value: key.cashier_key }]}
          onDone={() => setKey(null)}
        />
      ) : (
        <>
          <ModeChoice name="cashier-mode" legend={t.cashierKeyMode} value={mode} onChange={setMode} t={t} />
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            {t.reissueCashierKey}
          </button>
        </>
      )}
      {confirming && (
        <ConfirmDialog
          title={t.reissueCashierKey}
          body={t.reissueCashierConfirm[mode] ?? ''}
          confirmLabel={t.reissueYes}
          danger
          onConfirm={reissue}
          onClose={() => setConfirming(false)}
        />
      )}
    </section>
  );
}
