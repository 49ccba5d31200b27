import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { call, client } from '../api';
import { Badge, DateTime, ErrorMessage, Loading, Money, Notice, PageTitle, TableRegion, TestBadge } from '../components/common';
import { CopyField } from '../components/copy';
import { ConfirmDialog } from '../components/dialog';
import { Qr } from '../components/qr';
import { useLoad } from '../hooks';
import { useI18n, type Messages } from '../i18n';
import { formatBps } from '../format';
import type { WebhookDelivery } from '../types';
import { LinkRefunds } from './link-refunds';

const MONEY_FIELDS = new Set(['amount', 'payer_amount', 'merchant_credit', 'platform_revenue', 'amount_refunded']);
const DATE_FIELDS = new Set(['expires_at', 'paid_at', 'created_at', 'updated_at']);

function FieldValue({ name, value, t }: { name: string; value: unknown; t: Messages }) {
  const { lang } = useI18n();
  if (value === null || value === undefined || value === '') return <>{t.none}</>;
  if (MONEY_FIELDS.has(name) && typeof value === 'string') return <Money value={value} />;
  if (DATE_FIELDS.has(name) && typeof value === 'string') return <DateTime value={value} />;
  if (name === 'status' && typeof value === 'string') return <Badge kind={value}>{t.linkStatus[value] ?? value}</Badge>;
  if (name === 'fee_payer' && typeof value === 'string') return <>{t.feePayers[value] ?? value}</>;
  if (name === 'fee_bps' && typeof value === 'number') return <>{formatBps(value, lang)}</>;
  if (name === 'livemode' && typeof value === 'boolean')
    return <Badge kind={value ? 'mode-live' : 'mode-test'}>{t.modes[value ? 'live' : 'test']}</Badge>;
  return <span class="mono">{typeof value === 'string' ? value : JSON.stringify(value)}</span>;
}

export function LinkDetailPage({ id }: { id: string }) {
  const { t } = useI18n();
  const link = useLoad(() => call(client.GET('/api/v1/payment-links/{id}', { params: { path: { id } } })), id);
  const [confirming, setConfirming] = useState(false);
  const [canceled, setCanceled] = useState(false);

  const cancel = async () => {
    const updated = await call(client.POST('/api/v1/payment-links/{id}/cancel', { params: { path: { id } }, body: {} }));
    link.setData(updated);
    setConfirming(false);
    setCanceled(true);
  };

  return (
    <>
      <PageTitle title={t.linkTitle}>
        {t.linkTitle} {link.data && <TestBadge livemode={link.data.livemode} />}
      </PageTitle>
      <p>
        <Link href="/links">{t.backToLinks}</Link>
      </p>
      {link.loading && <Loading />}
      <ErrorMessage error={link.error} onRetry={link.reload} />
      {link.data && (
        <>
          {!link.data.livemode && <p class="test-note">{t.testLinkNote}</p>}
          {link.data.status === 'pending' && (
            <section class="card" aria-label={t.checkoutUrl}>
              <CopyField id="checkout-url" label={t.checkoutUrl} value={link.data.checkout_url} />
              <Qr text={link.data.checkout_url} label={t.qrLabel} />
              <div class="actions">
                <button type="button" class="danger" onClick={() => setConfirming(true)}>
                  {t.cancelLink}
                </button>
              </div>
            </section>
          )}
          {canceled && <Notice>{t.linkCanceled}</Notice>}
          <dl class="fields" data-testid="link-fields">
            {Object.entries(link.data).map(([name, value]) => (
              <div key={name}>
                <dt>{t.field[name] ?? name}</dt>
                <dd>
                  <FieldValue name={name} value={value} t={t} />
                </dd>
              </div>
            ))}
          </dl>
          {link.data.status === 'paid' && <LinkRefunds link={link.data} onChanged={link.reload} />}
          <Deliveries linkId={id} />
        </>
      )}
      {confirming && (
        <ConfirmDialog
          title={t.cancelLink}
          body={t.cancelLinkConfirm}
          confirmLabel={t.cancelLinkYes}
          danger
          onConfirm={cancel}
          onClose={() => setConfirming(false)}
        />
      )}
    </>
  );
}

function Deliveries({ linkId }: { linkId: string }) {
  const { t } = useI18n();
  const list = useLoad(() => call(client.GET('/api/v1/webhook-deliveries', { params: { query: { payment_link_id: linkId } } })), linkId);
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">{t.deliveriesTitle}</h2>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data?.deliveries.length === 0 && <p>{t.deliveriesEmpty}</p>}
      {list.data?.deliveries.map((d) => (
        <DeliveryCard
          key={d.id}
          delivery={d}
          onResent={(nd) => {
            if (list.data) list.setData({ ...list.data, deliveries: list.data.deliveries.map((x) => (x.id === d.id ? nd : x)) });
          }}
        />
      ))}
    </section>
  );
}

function DeliveryCard({ delivery, onResent }: { delivery: WebhookDelivery; onResent: (d: WebhookDelivery) => void }) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [resent, setResent] = useState(false);
  const resend = async () => {
    setBusy(true);
    setError(null);
    try {
      onResent(await call(client.POST('/api/v1/webhook-deliveries/{id}/resend', { params: { path: { id: delivery.id } }, body: {} })));
      setResent(true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const titleId = `delivery-${delivery.id}`;
  return (
    <article class="card delivery" aria-labelledby={titleId} data-testid="delivery">
      <h3 id={titleId}>
        {delivery.event} <Badge kind={delivery.status}>{t.deliveryStatus[delivery.status] ?? delivery.status}</Badge>
      </h3>
      <p class="mono small">{delivery.webhook_id}</p>
      {delivery.attempts.length > 0 && (
        <TableRegion label={`${t.attempts}: ${delivery.event}`}>
          <table>
            <caption class="visually-hidden">{t.attempts}</caption>
            <thead>
              <tr>
                <th scope="col">{t.attempt}</th>
                <th scope="col">{t.at}</th>
                <th scope="col">{t.httpStatus}</th>
                <th scope="col">{t.error}</th>
                <th scope="col" class="num">
                  {t.duration}
                </th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts.map((a) => (
                <tr key={a.attempt}>
                  <td>{a.attempt}</td>
                  <td>
                    <DateTime value={a.at} />
                  </td>
                  <td>{a.status_code ?? t.none}</td>
                  <td>{a.error ?? t.none}</td>
                  <td class="num">{a.duration_ms}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      {delivery.attempts_omitted > 0 && <p class="small">{t.attemptsOmitted(delivery.attempts_omitted)}</p>}
      <div class="actions">
        <button type="button" onClick={() => void resend()} disabled={busy} aria-busy={busy}>
          {t.resend}
        </button>
        {resent && <span role="status">{t.resent}</span>}
      </div>
      <ErrorMessage error={error} />
    </article>
  );
}
