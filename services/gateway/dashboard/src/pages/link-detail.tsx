import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { cancelLink, getLink } from '../api/links';
import { formatBps } from '../format';
import { useI18n } from '../i18n';
import { Badge, DateTime, ErrorMessage, Loading, Money, Notice, PageTitle, TestBadge } from '../kit/common';
import { ConfirmDialog } from '../kit/dialog';
import { Facts, type Fact } from '../kit/fields';
import { useLoad } from '../kit/use-load';
import { useShops } from '../loaders/shops';
import { CheckoutUrl } from '../sections/checkout-url';
import { LinkAttempts } from '../sections/link-attempts';
import { LinkDeliveries } from '../sections/link-deliveries';
import { LinkRefunds } from '../sections/link-refunds';
import type { PaymentLink } from '../types';
import { Allowed } from '../session';

export function LinkDetailPage({ id }: { id: string }) {
  const { t } = useI18n();
  const link = useLoad(() => getLink(id), id);
  const [confirming, setConfirming] = useState(false);
  const [canceled, setCanceled] = useState(false);

  const cancel = async () => {
    link.setData(await cancelLink(id));
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
              <CheckoutUrl url={link.data.checkout_url} />
              <Allowed to="operate_links">
                <div class="actions">
                  <button type="button" class="danger" onClick={() => setConfirming(true)}>
                    {t.cancelLink}
                  </button>
                </div>
              </Allowed>
            </section>
          )}
          {canceled && <Notice>{t.linkCanceled}</Notice>}
          <LinkFacts link={link.data} />
          {link.data.status === 'paid' && (
            <Allowed to="read_money">
              <LinkRefunds link={link.data} onChanged={link.reload} />
            </Allowed>
          )}
          <LinkAttempts linkId={id} />
          <LinkDeliveries linkId={id} />
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

/** A fact of the link, left out when the link has no such value. */
const fact = (label: string, value: string | null, show: (v: string) => ComponentChildren = (v) => v, mono = false): Fact | null =>
  value === null || value === '' ? null : { label, value: show(value), mono };

/**
 * The link as a merchant reads it, each value once: what it is, the amounts, how the buyer pays, the provider's side and
 * when things happened. The API's aliases of the checkout URL and its compatibility fields are not repeated here.
 */
function LinkFacts({ link }: { link: PaymentLink }) {
  const { t, lang } = useI18n();
  const shops = useShops();
  const f = t.field;
  const money = (v: string) => <Money value={v} />;
  const date = (v: string) => <DateTime value={v} />;
  const payment = [
    fact(f.to_currency, link.to_currency),
    fact(f.network, link.network),
    fact(f.payer_crypto_amount, link.payer_crypto_amount, (v) => `${v} ${link.payer_currency ?? ''}`.trim()),
    fact(f.deposit_address, link.deposit_address, (v) => v, true),
  ];
  const provider = [fact(f.gateway_provider, link.gateway_provider), fact(f.gateway_payment_id, link.gateway_payment_id, (v) => v, true)];
  return (
    <div class="fact-groups" data-testid="link-fields">
      <FactGroup id="link-about" title={t.linkGroupAbout}>
        <Facts
          facts={[
            { label: t.status, value: <Badge kind={link.status}>{t.linkStatus[link.status]}</Badge> },
            fact(f.order_id, link.order_id),
            fact(f.description, link.description),
            { label: t.shop, value: <Link href={`/shops/${link.shop_id}`}>{shops.nameOf(link.shop_id)}</Link> },
            // While it is pending the checkout URL is above, to copy and scan.
            link.status !== 'pending' && { label: t.checkoutUrl, value: link.checkout_url, mono: true },
            fact(f.return_url, link.return_url, (v) => v, true),
            { label: t.linkId, value: link.id, mono: true },
          ]}
        />
      </FactGroup>
      <FactGroup id="link-amounts" title={t.linkGroupAmounts}>
        <Facts
          facts={[
            { label: f.amount, value: money(link.amount) },
            { label: t.fee, value: `${formatBps(link.fee_bps, lang)} · ${t.feePayers[link.fee_payer]}` },
            { label: f.payer_amount, value: money(link.payer_amount) },
            { label: f.platform_revenue, value: money(link.platform_revenue) },
            { label: f.merchant_credit, value: money(link.merchant_credit) },
          ]}
        />
      </FactGroup>
      <FactGroup id="link-payment" title={t.linkGroupPayment}>
        {payment.some(Boolean) ? <Facts facts={payment} /> : <p class="small">{t.paymentNotChosen}</p>}
      </FactGroup>
      <FactGroup id="link-provider" title={t.linkGroupProvider}>
        {provider.some(Boolean) ? <Facts facts={provider} /> : <p class="small">{t.providerNone}</p>}
      </FactGroup>
      <FactGroup id="link-times" title={t.linkGroupTimes}>
        <Facts
          facts={[
            fact(f.created_at, link.created_at, date),
            fact(f.expires_at, link.expires_at, date),
            fact(f.paid_at, link.paid_at, date),
            fact(f.updated_at, link.updated_at, date),
          ]}
        />
      </FactGroup>
    </div>
  );
}

function FactGroup({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="card fact-group" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
