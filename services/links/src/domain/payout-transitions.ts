import { notFound, payoutAlreadyFinal } from '@pl/errors';
import type { PayoutDeps, PayoutMoveResult, PayoutRecord } from './payout';
import { payoutEvent } from './payout-view';

/**
 * The moves the payout rails make (docs/payouts.md, "How a payout is paid"): Heleket's callbacks and status sync, the
 * bank statement import, the test-mode simulator. Each is one transaction of the payout's row, at most one ledger
 * posting and at most one event, and idempotent: a payout already where the move leads is answered as it is, nothing
 * written (a repeated callback, a statement imported twice).
 *
 * - {@link markPayoutProcessing}: approved → processing (handed to its rail); no money moves, no event.
 * - {@link markPayoutPaid}: processing → paid; payouts in transit → the rail's clearing (`clearing`, provider = the
 *   payout's rail), the fee → revenue; `payout.paid`.
 * - {@link markPayoutFailed}: processing or paid → failed (a bank's return may come after paid); the money goes back to
 *   the shop's balance (`payout_returned`); `payout.failed` with the reason.
 *
 * A payout that is elsewhere (canceled, rejected, or paid when asked to process) is refused with
 * `payout.err.already_final`; an unknown id is `common.err.not_found`.
 */
export type PayoutTransitionDeps = Pick<PayoutDeps, 'payouts' | 'newId' | 'eventsTopic'>;

function outcome(result: PayoutMoveResult): PayoutRecord {
  switch (result.kind) {
    case 'moved':
    case 'unchanged':
      return result.payout;
    case 'not_found':
      throw notFound('Payout not found');
    case 'refused':
    case 'own_payout':
      throw payoutAlreadyFinal(result.payout.status);
  }
}

export async function markPayoutProcessing(deps: PayoutTransitionDeps, id: string): Promise<PayoutRecord> {
  return outcome(
    await deps.payouts.move({
      id,
      to: 'processing',
      from: ['approved'],
      by: null,
      failureReason: null,
      notByCreator: false,
      merchantId: null,
      eventOf: null,
    }),
  );
}

export async function markPayoutPaid(deps: PayoutTransitionDeps, id: string): Promise<PayoutRecord> {
  return outcome(
    await deps.payouts.move({
      id,
      to: 'paid',
      from: ['processing'],
      by: null,
      failureReason: null,
      notByCreator: false,
      merchantId: null,
      eventOf: (p) => payoutEvent('payout.paid', p, deps.newId(), deps.eventsTopic),
    }),
  );
}

export async function markPayoutFailed(deps: PayoutTransitionDeps, id: string, reason: string): Promise<PayoutRecord> {
  return outcome(
    await deps.payouts.move({
      id,
      to: 'failed',
      from: ['processing', 'paid'],
      by: null,
      failureReason: reason.slice(0, 500),
      notByCreator: false,
      merchantId: null,
      eventOf: (p) => payoutEvent('payout.failed', p, deps.newId(), deps.eventsTopic),
    }),
  );
}
