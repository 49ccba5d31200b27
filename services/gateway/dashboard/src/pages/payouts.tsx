import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { approvePayout, listPayoutDestinations, listPayouts, simulatePayout, type PayoutFilters } from '../api/payouts';
import { useI18n } from '../i18n';
import { Badge, DateTime, ErrorMessage, Loading, Money, Notice, PageTitle, TestBadge } from '../kit/common';
import { DataTable } from '../kit/data-table';
import { FilterForm, FilterSelect } from '../kit/filters';
import { useAction, useLoad, usePagedLoad, type Loaded, type Paging } from '../kit/use-load';
import { useShops, type Shops } from '../loaders/shops';
import { DailyReport } from '../sections/daily-report';
import { PayoutButtons, PayoutDialog, type PayoutMove } from '../sections/payout-actions';
import { NewPayoutForm } from '../sections/payout-form';
import { Allowed, useMay } from '../session';
import type { Payout, PayoutPage, PayoutStatus } from '../types';

const STATUSES: readonly PayoutStatus[] = ['pending_approval', 'approved', 'processing', 'paid', 'failed', 'canceled', 'rejected'];
const NO_FILTERS: PayoutFilters = { shop_id: '', status: '' };

/**
 * Payouts (docs/payouts.md) in this mode: a new one, the queue of those awaiting approval, every payout with its
 * filters and pages, and the daily report. What a member sees of the actions is their role's (roles.ts); a reader
 * of money sees the lists only.
 */
export function PayoutsPage() {
  const { t } = useI18n();
  const may = useMay();
  const shops = useShops();
  const destinations = useLoad(listPayoutDestinations, 'destinations');
  const [filters, setFilters] = useState<PayoutFilters>(NO_FILTERS);
  // Every change (a new payout, a decision) reads both lists again: a payout moves from the queue to the list's other state.
  const [round, setRound] = useState(0);
  const queue = usePagedLoad((cursor) => listPayouts({ shop_id: '', status: 'pending_approval' }, cursor), `queue-${round}`);
  const rows = usePagedLoad((cursor) => listPayouts(filters, cursor), JSON.stringify([filters, round]));
  const { register, handleSubmit, reset } = useForm<PayoutFilters>({ defaultValues: NO_FILTERS });
  const [notice, setNotice] = useState<string | null>(null);
  const [asking, setAsking] = useState<{ payout: Payout; move: 'reject' | 'cancel' } | null>(null);
  const changed = (words: string) => {
    setNotice(words);
    setRound((r) => r + 1);
  };
  // Approve and the simulator act at once; approving asks for step-up through the API layer.
  const act = useAction(async (payout: Payout, move: 'approve' | 'paid' | 'failed') => {
    await (move === 'approve' ? approvePayout(payout.id) : simulatePayout(payout.id, move));
    changed(t.payoutDone[move]);
  });
  const choose = (payout: Payout, move: PayoutMove) => {
    setNotice(null);
    if (move === 'reject' || move === 'cancel') setAsking({ payout, move });
    else act.run(payout, move);
  };
  const active = destinations.data?.payout_destinations.filter((d) => d.status === 'active') ?? [];

  return (
    <>
      <PageTitle title={t.payoutsTitle}>{t.payoutsTitle}</PageTitle>
      <p class="hint">{may('payouts') ? t.payoutsHint : `${t.payoutsHint} ${t.payoutsReadOnly}`}</p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={act.error} />
      <Allowed to="payouts">
        {(shops.loading || destinations.loading) && <Loading />}
        <ErrorMessage error={shops.error ?? destinations.error} onRetry={() => (shops.error ? shops.reload() : destinations.reload())} />
        {shops.data && destinations.data && (
          <NewPayoutForm
            shops={shops.list}
            destinations={active}
            onCreated={(p) => changed(t.payoutCreated[p.status === 'approved' ? 'approved' : 'pending_approval'])}
          />
        )}
      </Allowed>
      <section aria-labelledby="payout-queue-title">
        <h2 id="payout-queue-title">{t.payoutQueue}</h2>
        <p class="hint">{t.payoutQueueHint}</p>
        <PayoutTable
          label={t.payoutQueue}
          testId="payout-queue"
          load={queue}
          paging={queue.paging}
          empty={t.payoutQueueEmpty}
          shops={shops}
          busy={act.busy}
          onChoose={choose}
        />
      </section>
      <section aria-labelledby="payout-all-title">
        <h2 id="payout-all-title">{t.payoutAll}</h2>
        <FilterForm
          onApply={(e) => void handleSubmit(setFilters)(e)}
          onReset={() => {
            reset(NO_FILTERS);
            setFilters(NO_FILTERS);
          }}
        >
          <FilterSelect id="p-shop" name="shop_id" label={t.shop} any={t.anyShop} options={shops.options} register={register} />
          <FilterSelect
            id="p-status"
            name="status"
            label={t.status}
            any={t.anyStatus}
            options={STATUSES.map((s) => [s, t.payoutStatus[s]])}
            register={register}
          />
        </FilterForm>
        <PayoutTable
          label={t.payoutAll}
          testId="payout-table"
          load={rows}
          paging={rows.paging}
          empty={t.payoutsEmpty}
          shops={shops}
          busy={act.busy}
          onChoose={choose}
        />
      </section>
      {shops.data && shops.list.length > 0 && <DailyReport shops={shops.list} />}
      {asking && (
        <PayoutDialog
          key={`${asking.payout.id}-${asking.move}`}
          payout={asking.payout}
          move={asking.move}
          onDone={() => {
            setAsking(null);
            changed(t.payoutDone[asking.move]);
          }}
          onClose={() => {
            setAsking(null);
            // A refusal in the dialog (moved meanwhile) leaves a stale row: read the lists again.
            setRound((r) => r + 1);
          }}
        />
      )}
    </>
  );
}

function PayoutTable({
  label,
  testId,
  load,
  paging,
  empty,
  shops,
  busy,
  onChoose,
}: {
  label: string;
  testId: string;
  load: Loaded<PayoutPage>;
  paging: Paging;
  empty: string;
  shops: Shops;
  /** A row's action is under way: no second one until it is answered. */
  busy: boolean;
  onChoose: (p: Payout, move: PayoutMove) => void;
}) {
  const { t } = useI18n();
  const may = useMay();
  return (
    <DataTable
      label={label}
      testId={testId}
      load={load}
      items={(page) => page.payouts}
      empty={empty}
      paging={paging}
      rowKey={(p) => p.id}
      rowType={(p) => p.status}
      columns={[
        { header: t.created, cell: (p) => <DateTime value={p.created_at} /> },
        { header: t.shop, cell: (p) => shops.nameOf(p.shop_id) },
        { header: t.amount, num: true, cell: (p) => <Money value={p.amount} /> },
        { header: t.fee, num: true, cell: (p) => <Money value={p.fee} /> },
        {
          header: t.payoutDestination,
          cell: (p) => (
            <>
              {t.destinationType[p.destination.type]}
              <br />
              <span class="mono small">{p.destination.masked}</span>
            </>
          ),
        },
        {
          header: t.status,
          cell: (p) => (
            <>
              <Badge kind={p.status}>{t.payoutStatus[p.status]}</Badge> <TestBadge livemode={p.livemode} />
              {p.failure_reason !== null && (
                <>
                  <br />
                  <span class="small">
                    {t.payoutFailure}: {p.failure_reason}
                  </span>
                </>
              )}
            </>
          ),
        },
        // A member who may do nothing to a payout reads the lists without the column.
        ...(may('payouts') || may('approve_payouts')
          ? [{ header: t.actions, cell: (p: Payout) => <PayoutButtons payout={p} busy={busy} onChoose={(move) => onChoose(p, move)} /> }]
          : []),
      ]}
    />
  );
}
