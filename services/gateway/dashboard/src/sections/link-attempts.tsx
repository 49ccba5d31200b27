import { listLinkAttempts } from '../api/links';
import { useI18n, wordFor } from '../i18n';
import { Badge, DateTime } from '../kit/common';
import { ListStates, Table } from '../kit/data-table';
import { useLoad } from '../kit/use-load';

/** Each method the buyer chose, at its provider: the provider's payment id, the attempt's state and its last word. */
export function LinkAttempts({ linkId }: { linkId: string }) {
  const { t } = useI18n();
  const list = useLoad(() => listLinkAttempts(linkId), linkId);
  return (
    <section aria-labelledby="payment-attempts-title" data-testid="payment-attempts">
      <h2 id="payment-attempts-title">{t.paymentAttemptsTitle}</h2>
      <ListStates load={list} items={(l) => l.attempts} empty={t.paymentAttemptsEmpty}>
        {(attempts) => (
          <Table
            label={t.paymentAttemptsTitle}
            rows={attempts}
            rowKey={(a) => a.n}
            columns={[
              { header: '#', num: true, cell: (a) => a.n },
              { header: t.attemptProvider, cell: (a) => `${a.provider} · ${a.network ?? 'SBP'}` },
              { header: t.attemptPaymentId, cell: (a) => <span class="mono small">{a.gateway_payment_id ?? t.none}</span> },
              { header: t.attemptState, cell: (a) => <Badge kind={a.state}>{wordFor(t.attemptStates, a.state)}</Badge> },
              { header: t.attemptLastStatus, cell: (a) => a.provider_status ?? t.none },
              { header: t.attemptUpdated, cell: (a) => <DateTime value={a.updated_at} /> },
            ]}
          />
        )}
      </ListStates>
    </section>
  );
}
