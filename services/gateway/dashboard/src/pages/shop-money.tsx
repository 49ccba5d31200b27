import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { DateTime, ErrorMessage, Loading, Money } from '../components/common';
import { EVENT_TYPES } from '../events';
import { useLoad } from '../hooks';
import { useI18n } from '../i18n';
import { useMode } from '../mode';
import { getBalance, saveWebhookEvents } from '../money-api';
import type { EventType, MerchantShop } from '../types';

/** The shop's balance in the mode the dashboard is in: live and test money never mix (test-mode.md). */
export function ShopBalance({ shopId }: { shopId: number }) {
  const { t } = useI18n();
  const { mode } = useMode();
  const balance = useLoad(() => getBalance(shopId), String(shopId));
  return (
    <section class="card" aria-labelledby="balance-title" data-testid="shop-balance">
      <h2 id="balance-title">{t.balanceOfMode[mode] ?? t.balanceTitle}</h2>
      {balance.loading && <Loading />}
      <ErrorMessage error={balance.error} onRetry={balance.reload} />
      {balance.data && (
        <dl class="fields balance">
          <div>
            <dt>{t.available}</dt>
            <dd data-testid="balance-available">
              <Money value={balance.data.available} />
            </dd>
          </div>
          <div>
            <dt>{t.refundReserve}</dt>
            <dd data-testid="balance-reserve">
              <Money value={balance.data.refund_reserve} />
            </dd>
          </div>
          <div>
            <dt>{t.balanceUpdated}</dt>
            <dd>
              <DateTime value={balance.data.updated_at} />
            </dd>
          </div>
        </dl>
      )}
      <p>
        <Link href={`/balance?shop_id=${shopId}`}>{t.balanceTransactionsOfShop}</Link>
      </p>
    </section>
  );
}

/** Which events go to the shop's webhook URL (the list is shared by both modes, like the URL itself). */
export function WebhookEvents({ shop, onSaved }: { shop: MerchantShop; onSaved: (s: MerchantShop) => void }) {
  const { t } = useI18n();
  const [chosen, setChosen] = useState<ReadonlySet<EventType>>(() => new Set(shop.webhook_events));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const toggle = (type: EventType, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(type);
    else next.delete(type);
    setChosen(next);
    setSaved(false);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      // In the catalogue's order, so the stored list reads the same whatever order the boxes were ticked in.
      onSaved(
        await saveWebhookEvents(
          shop.id,
          EVENT_TYPES.filter((type) => chosen.has(type)),
        ),
      );
      setSaved(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" aria-labelledby="webhook-events-title" onSubmit={(e) => void save(e)} noValidate>
      <h2 id="webhook-events-title">{t.webhookEventsTitle}</h2>
      <fieldset class="field checks" aria-describedby="webhook-events-hint">
        <legend class="visually-hidden">{t.webhookEventsTitle}</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type}>
            <input type="checkbox" value={type} checked={chosen.has(type)} onChange={(e) => toggle(type, e.currentTarget.checked)} />
            {t.eventType[type] ?? type} <span class="mono small">{type}</span>
          </label>
        ))}
        <p class="hint" id="webhook-events-hint">
          {t.webhookEventsHint}
        </p>
      </fieldset>
      <ErrorMessage error={error} />
      <div class="actions">
        {/* Named apart from the settings form's Save above it: one page, two forms. */}
        <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
          {t.saveWebhookEvents}
        </button>
        {saved && <span role="status">{t.webhookEventsSaved}</span>}
      </div>
    </form>
  );
}
