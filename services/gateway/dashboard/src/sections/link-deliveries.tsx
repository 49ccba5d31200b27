import { listLinkDeliveries, resendDelivery } from '../api/links';
import { useI18n } from '../i18n';
import { Badge, DateTime, ErrorMessage } from '../kit/common';
import { ListStates, Table } from '../kit/data-table';
import { useAction, useLoad } from '../kit/use-load';
import type { WebhookDelivery } from '../types';
import { Allowed } from '../session';

/** A link's webhook deliveries: each event sent, its attempts, and a resend. */
export function LinkDeliveries({ linkId }: { linkId: string }) {
  const { t } = useI18n();
  const list = useLoad(() => listLinkDeliveries(linkId), linkId);
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">{t.deliveriesTitle}</h2>
      <ListStates load={list} items={(l) => l.deliveries} empty={t.deliveriesEmpty}>
        {(deliveries) =>
          deliveries.map((d) => (
            <DeliveryCard
              key={d.id}
              delivery={d}
              onResent={(nd) => {
                if (list.data) list.setData({ ...list.data, deliveries: list.data.deliveries.map((x) => (x.id === d.id ? nd : x)) });
              }}
            />
          ))
        }
      </ListStates>
    </section>
  );
}

function DeliveryCard({ delivery, onResent }: { delivery: WebhookDelivery; onResent: (d: WebhookDelivery) => void }) {
  const { t } = useI18n();
  const resend = useAction(async () => onResent(await resendDelivery(delivery.id)));
  const titleId = `delivery-${delivery.id}`;
  return (
    <article class="card delivery" aria-labelledby={titleId} data-testid="delivery">
      <h3 id={titleId}>
        {delivery.event} <Badge kind={delivery.status}>{t.deliveryStatus[delivery.status]}</Badge>
      </h3>
      <p class="mono small">{delivery.webhook_id}</p>
      {delivery.attempts.length > 0 && (
        <Table
          label={`${t.attempts}: ${delivery.event}`}
          rows={delivery.attempts}
          rowKey={(a) => a.attempt}
          columns={[
            { header: t.attempt, cell: (a) => a.attempt },
            { header: t.at, cell: (a) => <DateTime value={a.at} /> },
            { header: t.httpStatus, cell: (a) => a.status_code ?? t.none },
            { header: t.error, cell: (a) => a.error ?? t.none },
            { header: t.duration, num: true, cell: (a) => a.duration_ms },
          ]}
        />
      )}
      {delivery.attempts_omitted > 0 && <p class="small">{t.attemptsOmitted(delivery.attempts_omitted)}</p>}
      <Allowed to="operate_links">
        <div class="actions">
          <button type="button" onClick={() => resend.run()} disabled={resend.busy} aria-busy={resend.busy}>
            {t.resend}
          </button>
          {resend.done && <span role="status">{t.resent}</span>}
        </div>
        <ErrorMessage error={resend.error} />
      </Allowed>
    </article>
  );
}
