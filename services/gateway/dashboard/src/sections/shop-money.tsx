import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { getBalance } from '../api/money';
import { saveWebhookEvents } from '../api/shops';
import { EVENT_TYPES } from '../events';
import { useI18n, wordFor } from '../i18n';
import { DateTime, ErrorMessage, Loading, Money } from '../kit/common';
import { Facts } from '../kit/fields';
import { useAction, useLoad } from '../kit/use-load';
import { useMode } from '../mode';
import type { EventType, MerchantShop } from '../types';

/** The shop's balance in the mode the dashboard is in: live and test money never mix (docs/test-mode.md). */
export function ShopBalance({ shopId }: { shopId: number }) {
  const { t } = useI18n();
  const { mode } = useMode();
  const balance = useLoad(() => getBalance(shopId), String(shopId));
  return (
    <section class="card" aria-labelledby="balance-title" data-testid="shop-balance">
      <h2 id="balance-title">{t.balanceOfMode[mode]}</h2>
      {balance.loading && <Loading />}
      <ErrorMessage error={balance.error} onRetry={balance.reload} />
      {balance.data && (
        <Facts
          facts={[
            { label: t.balanceTotal, value: <Money value={balance.data.balance} />, testId: 'balance-total' },
            // What may be paid out now, and what waits for the hold to pass (docs/payouts.md, "Available and pending").
            { label: t.available, value: <Money value={balance.data.available} />, testId: 'balance-available' },
            { label: t.pending, value: <Money value={balance.data.pending} />, testId: 'balance-pending' },
            { label: t.refundReserve, value: <Money value={balance.data.refund_reserve} />, testId: 'balance-reserve' },
            { label: t.balanceUpdated, value: <DateTime value={balance.data.updated_at} /> },
          ]}
        />
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
  const [changed, setChanged] = useState(false);
  const toggle = (type: EventType, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(type);
    else next.delete(type);
    setChosen(next);
    setChanged(true);
  };
  const save = useAction(async () => {
    setChanged(false);
    // In the catalogue's order, so the stored list reads the same whatever order the boxes were ticked in.
    onSaved(
      await saveWebhookEvents(
        shop.id,
        EVENT_TYPES.filter((type) => chosen.has(type)),
      ),
    );
  });
  return (
    <form
      class="card"
      aria-labelledby="webhook-events-title"
      onSubmit={(e) => {
        e.preventDefault();
        save.run();
      }}
      noValidate
    >
      <h2 id="webhook-events-title">{t.webhookEventsTitle}</h2>
      <fieldset class="field checks" aria-describedby="webhook-events-hint">
        <legend class="visually-hidden">{t.webhookEventsTitle}</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type}>
            <input type="checkbox" value={type} checked={chosen.has(type)} onChange={(e) => toggle(type, e.currentTarget.checked)} />
            {wordFor(t.eventType, type)} <span class="mono small">{type}</span>
          </label>
        ))}
        <p class="hint" id="webhook-events-hint">
          {t.webhookEventsHint}
        </p>
      </fieldset>
      <ErrorMessage error={save.error} />
      <div class="actions">
        {/* Named apart from the settings form's Save above it: one page, two forms. */}
        <button type="submit" class="primary" disabled={save.busy} aria-busy={save.busy}>
          {t.saveWebhookEvents}
        </button>
        {save.done && !changed && <span role="status">{t.webhookEventsSaved}</span>}
      </div>
    </form>
  );
}
