import { useMemo, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { listLinkDeliveries } from '../api/links';
import { listEvents } from '../api/money';
import { EVENT_TYPES } from '../events';
import { useI18n, wordFor } from '../i18n';
import { Badge, DateTime, Money, PageTitle, TestBadge } from '../kit/common';
import { DataTable, ListStates } from '../kit/data-table';
import { Facts } from '../kit/fields';
import { useLoad, usePagedLoad } from '../kit/use-load';
import type { EventType, WebhookDeliveryList, WebhookEvent } from '../types';

/** A page's deliveries by link: events of one link share one call. */
type DeliveriesOf = (linkId: string) => Promise<WebhookDeliveryList>;

/** Every event of the merchant's shops, sent or not (docs/webhooks.md, "Catching up: the events API"), with what was delivered of each. */
export function EventsPage() {
  const { t } = useI18n();
  const [type, setType] = useState<'' | EventType>('');
  const events = usePagedLoad((cursor) => listEvents(type, cursor), type);
  const pageKey = JSON.stringify([type, events.paging.cursor]);
  // Fresh for every page of events, so what it shows is as of that page's loading.
  const deliveriesOf = useMemo<DeliveriesOf>(() => {
    const calls = new Map<string, Promise<WebhookDeliveryList>>();
    return (linkId) => {
      let found = calls.get(linkId);
      if (!found) {
        found = listLinkDeliveries(linkId);
        calls.set(linkId, found);
      }
      return found;
    };
  }, [pageKey]);
  return (
    <>
      <PageTitle title={t.eventsTitle}>{t.eventsTitle}</PageTitle>
      <p>{t.eventsHint}</p>
      <div class="filters">
        <div class="field">
          <label for="e-type">{t.event}</label>
          <select id="e-type" value={type} onChange={(e) => setType(e.currentTarget.value as '' | EventType)}>
            <option value="">{t.anyEvent}</option>
            {EVENT_TYPES.map((ty) => (
              <option key={ty} value={ty}>
                {t.eventType[ty]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ListStates load={events} items={(page) => page.events} empty={t.eventsEmpty} paging={events.paging}>
        {(list) => list.map((e) => <EventCard key={e.event_id} event={e} deliveriesOf={deliveriesOf} />)}
      </ListStates>
    </>
  );
}

function EventCard({ event, deliveriesOf }: { event: WebhookEvent; deliveriesOf: DeliveriesOf }) {
  const { t } = useI18n();
  const titleId = `event-${event.event_id}`;
  // A payout's event names no link (its deliveries are not listed by link either).
  const linkId = 'payment_link_id' in event.data ? event.data.payment_link_id : null;
  return (
    <article class="card event" aria-labelledby={titleId} data-testid="event" data-event={event.event}>
      <h2 id={titleId}>
        {t.eventType[event.event]} <span class="mono small">{event.event}</span> <TestBadge livemode={event.livemode} />
      </h2>
      <Facts
        facts={[
          { label: t.created, value: <DateTime value={event.created_at} /> },
          { label: t.amount, value: <Money value={event.data.amount} /> },
          ...(linkId === null
            ? []
            : [
                {
                  label: t.paymentLink,
                  value: (
                    <Link href={`/links/${linkId}`} class="mono small">
                      {linkId}
                    </Link>
                  ),
                },
              ]),
          { label: t.eventId, value: <span class="small">{event.event_id}</span>, mono: true },
        ]}
      />
      {linkId !== null && <EventDeliveries linkId={linkId} event={event} deliveriesOf={deliveriesOf} />}
    </article>
  );
}

/** The deliveries of this event: those of its link whose webhook id is the event's id. */
function EventDeliveries({ linkId, event, deliveriesOf }: { linkId: string; event: WebhookEvent; deliveriesOf: DeliveriesOf }) {
  const { t } = useI18n();
  const list = useLoad(() => deliveriesOf(linkId), event.event_id);
  return (
    <>
      <h3>{t.eventDeliveries}</h3>
      <DataTable
        label={`${t.eventDeliveries}: ${event.event_id}`}
        testId="event-deliveries"
        load={list}
        items={(d) => d.deliveries.filter((x) => x.webhook_id === event.event_id)}
        empty={t.eventNotSent}
        rowKey={(d) => d.id}
        columns={[
          { header: t.status, cell: (d) => <Badge kind={d.status}>{wordFor(t.deliveryStatus, d.status)}</Badge> },
          { header: t.attempts, num: true, cell: (d) => d.attempts.length + d.attempts_omitted },
          { header: t.at, cell: (d) => <DateTime value={d.attempts.at(-1)?.at ?? null} /> },
          { header: t.httpStatus, cell: (d) => d.attempts.at(-1)?.status_code ?? t.none },
        ]}
      />
    </>
  );
}
