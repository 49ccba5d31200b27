import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { Link } from 'wouter-preact';
import { getShop, reissueCashierKey, rotateWebhookSecret, sendTestWebhook, updateShop } from '../api/shops';
import { formatBps } from '../format';
import { useI18n } from '../i18n';
import { Badge, DateTime, ErrorMessage, Loading, Notice, PageTitle } from '../kit/common';
import { SecretReveal } from '../kit/copy';
import { ConfirmDialog } from '../kit/dialog';
import { Facts } from '../kit/fields';
import { described, Field, ModeChoice, placeApiError } from '../kit/forms';
import { useAction, useLoad } from '../kit/use-load';
import { useMode, type Mode } from '../mode';
import { ShopBalance, WebhookEvents } from '../sections/shop-money';
import { PaymentMethods } from '../sections/shop-methods';
import { PayoutScheduleSection } from '../sections/payout-schedule';
import { ShopForm } from '../sections/shop-fields';
import type { MerchantShop, RotatedSecret, WebhookDelivery } from '../types';
import { Allowed } from '../session';

export function ShopDetailPage({ id }: { id: string }) {
  const { t, lang } = useI18n();
  const shop = useLoad(() => getShop(id), id);
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
          <Facts
            facts={[
              { label: t.status, value: <Badge kind={s.status}>{t.shopStatus[s.status]}</Badge> },
              { label: t.rates, value: `${t.cryptoRate} ${formatBps(s.crypto_bps, lang)} · ${t.sbpRate} ${formatBps(s.sbp_bps, lang)}` },
              { label: t.shopId, value: s.id, mono: true },
              { label: t.created, value: <DateTime value={s.created_at} /> },
            ]}
          />
          <Allowed to="read_money">
            <ShopBalance shopId={s.id} />
            <PayoutScheduleSection shop={s} onSaved={shop.setData} />
          </Allowed>
          <Allowed to="integrate">
            <ShopForm id="shop" title={t.settings} shop={s} save={(body) => updateShop(s.id, body)} submitLabel={t.save} onSaved={shop.setData} />
            <PaymentMethods shop={s} onSaved={shop.setData} />
            <WebhookEvents shop={s} onSaved={shop.setData} />
            <WebhookSecret shop={s} onRotated={shop.reload} />
            <TestWebhook shopId={s.id} />
            <CashierKey shopId={s.id} />
          </Allowed>
        </>
      )}
    </>
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
      setSecret(await rotateWebhookSecret(shop.id, confirming ?? 0));
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
  const [sent, setSent] = useState<WebhookDelivery | null>(null);
  const send = useAction(async () => {
    setSent(null);
    setSent(await sendTestWebhook(shopId));
  });
  return (
    <section class="card" aria-labelledby="test-webhook-title">
      <h2 id="test-webhook-title">{t.testWebhook}</h2>
      <button type="button" onClick={() => send.run()} disabled={send.busy} aria-busy={send.busy}>
        {t.testWebhook}
      </button>
      {sent && <Notice>{t.testWebhookSent(t.deliveryStatus[sent.status])}</Notice>}
      <ErrorMessage error={send.error} />
    </section>
  );
}

/** A shop has one cashier key per mode (docs/test-mode.md); the merchant picks which one to reissue, and sees which it got. */
function CashierKey({ shopId }: { shopId: number }) {
  const { t } = useI18n();
  const [mode, setMode] = useState<Mode>(useMode().mode);
  const [confirming, setConfirming] = useState(false);
  const [key, setKey] = useState<{ cashier_key: string; mode: Mode } | null>(null);
  const reissue = async () => {
    const res = await reissueCashierKey(shopId, mode);
    setConfirming(false);
    setKey(res);
  };
  return (
    <section class="card" aria-labelledby="cashier-title">
      <h2 id="cashier-title">{t.cashierKeyTitle}</h2>
      {key ? (
        <SecretReveal
          title={t.cashierKeyOf[key.mode]}
          secrets={[{ id: 'cashier-key', label: t.cashierKeyOf[key.mode], value: key.cashier_key }]}
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
          body={t.reissueCashierConfirm[mode]}
          confirmLabel={t.reissueYes}
          danger
          onConfirm={reissue}
          onClose={() => setConfirming(false)}
        />
      )}
    </section>
  );
}
