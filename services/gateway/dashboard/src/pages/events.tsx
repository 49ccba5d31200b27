import { useMemo, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { Badge, DateTime, ErrorMessage, Loading, Money, PageTitle, Pager, TableRegion, TestBadge } from '../components/common';
import { EVENT_TYPES } from '../events';
import { useLoad } from '../hooks';
import { useI18n } from '../i18n';
import { listEvents, listLinkDeliveries } from '../money-api';
import type { EventType, WebhookDeliveryList, WebhookEvent } from '../types';

/** A page's deliveries by link: events of one link share one call. */
type DeliveriesOf = (linkId: string) => Promise<WebhookDeliveryList>;

/** Every event of the merchant's shops, sent or not (money-after-payment.md, 1), with what was delivered of each. */
export function EventsPage() {
  const { t } = useI18n();
  const [type, setType] = useState<'' | EventType>('');
  const [cursor, setCursor] = useState<string | null>(null);
  const key = JSON.stringify([type, cursor]);
  const events = useLoad(() => listEvents(type, cursor), key);
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
  }, [key]);
  return (
    <>
      <PageTitle title={t.eventsTitle}>{t.eventsTitle}</PageTitle>
      <p>{t.eventsHint}</p>
      <div class="filters">
        <div class="field">
          <label for="e-type">{t.event}</label>
          <select
            id="e-type"
            value={type}
            onChange={(e) => {
              setType(e.currentTarget.value as '' | EventType);
              setCursor(null);
            }}
          >
            <option value="">{t.anyEvent}</option>
            {EVENT_TYPES.map((ty) => (
              <option key={ty} value={ty}>
                {t.eventType[ty] ?? ty}
              </option>
            ))}
          </select>
        </div>
      </div>
      {events.loading && <Loading />}
      <ErrorMessage error={events.error} onRetry={events.reload} />
      {events.data && !events.loading && (
        <>
          {events.data.events.length === 0 && <p>{t.eventsEmpty}</p>}
          {events.data.events.map((e) => (
            <EventCard key={e.event_id} event={e} deliveriesOf={deliveriesOf} />
          ))}
          <Pager cursor={cursor} page={events.data} onCursor={setCursor} />
        </>
      )}
    </>
  );
}

function EventCard({ event, deliveriesOf }: { event: WebhookEvent; deliveriesOf: DeliveriesOf }) {
  const { t } = useI18n();
  const titleId = `event-${event.event_id}`;
  const linkId = event.data.payment_link_id;
  return (
    <article class="card event" aria-labelledby={titleId} data-testid="event" data-event={event.event}>
      <h2 id={titleId}>
        {t.eventType[event.event] ?? event.event} <span class="mono small">{event.event}</span> <TestBadge livemode={event.livemode} />
      </h2>
      <dl class="fields">
        <div>
          <dt>{t.created}</dt>
          <dd>
            <DateTime value={event.created_at} />
          </dd>
        </div>
        <div>
          <dt>{t.amount}</dt>
          <dd>
            <Money value={event.data.amount} />
          </dd>
        </div>
        <div>
          <dt>{t.paymentLink}</dt>
          <dd>
            <Link href={`/links/${linkId}`} class="mono small">
              {linkId}
            </Link>
          </dd>
        </div>
        <div>
          <dt>{t.eventId}</dt>
          <dd class="mono small">{event.event_id}</dd>
        </div>
      </dl>
      <EventDeliveries event={event} deliveriesOf={deliveriesOf} />
    </article>
  );
}

/** The deliveries of this event: those of its link whose webhook id is the event's id. */
function EventDeliveries({ event, deliveriesOf }: { event: WebhookEvent; deliveriesOf: DeliveriesOf }) {
  const { t } = useI18n();
  const list = useLoad(() => deliveriesOf(event.data.payment_link_id), event.event_id);
  const own = list.data?.deliveries.filter((d) => d.webhook_id === event.event_id) ?? [];
  return (
    <>
      <h3>{t.eventDeliveries}</h3>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && own.length === 0 && <p class="small">{t.eventNotSent}</p>}
      {own.length > 0 && (
        <TableRegion label={`${t.eventDeliveries}: ${event.event_id}`}>
          <table data-testid="event-deliveries">
            <thead>
              <tr>
                <th scope="col">{t.status}</th>
                <th scope="col">{t.attempts}</th>
                <th scope="col">{t.at}</th>
                <th scope="col">{t.httpStatus}</th>
              </tr>
            </thead>
            <tbody>
              {own.map((d) => {
                const last = d.attempts[d.attempts.length - 1];
                return (
                  <tr key={d.id}>
                    <td>
                      <Badge kind={d.status}>{t.deliveryStatus[d.status] ?? d.status}</Badge>
                    </td>
                    <td>{d.attempts.length + d.attempts_omitted}</td>
                    <td>
                      <DateTime value={last?.at ?? null} />
                    </td>
                    <td>{last?.status_code ?? t.none}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableRegion>
      )}
    </>
  );
}
