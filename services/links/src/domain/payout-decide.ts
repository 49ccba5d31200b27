import type { Identity, ListPayoutsCommand, PayoutDecisionCommand, PayoutPage } from '@pl/contracts';
import { notFound, ownPayout, payoutAlreadyFinal, payoutNotCancelable, payoutNotPendingApproval } from '@pl/errors';
import { requireMerchant, scopeOf } from './access';
import { decodeCursor } from './cursor';
import type { PayoutDeps, PayoutMove, PayoutRecord } from './payout';
import { getPayout } from './payout-create';
import { markPayoutFailed, markPayoutPaid, markPayoutProcessing } from './payout-transitions';
import { payoutEvent, toPayoutPage } from './payout-view';

/**
 * A member's decision on a payout of its account (docs/payouts.md): approve (another member than its creator; the
 * gateway checked the role and step-up), reject with a reason (it ends as `rejected`, announced as `payout.canceled`),
 * cancel while `pending_approval` or `approved`. Each is a conditional move under the payout's row lock, so two
 * approvers at once approve once: the second finds it approved and is refused.
 */
export async function decidePayout(deps: PayoutDeps, identity: Identity, command: PayoutDecisionCommand): Promise<PayoutRecord> {
  const who = requireMerchant(identity);
  await getPayout(deps, identity, command.id);
  const canceledEvent = (p: PayoutRecord) => payoutEvent('payout.canceled', p, deps.newId(), deps.eventsTopic);
  const base = { id: command.id, by: command.user_id, merchantId: who.merchant_id, failureReason: null };
  const move: PayoutMove =
    command.decision === 'approve'
      ? { ...base, to: 'approved', from: ['pending_approval'], notByCreator: true, eventOf: null }
      : command.decision === 'reject'
        ? { ...base, to: 'rejected', from: ['pending_approval'], notByCreator: false, failureReason: command.reason, eventOf: canceledEvent }
        : { ...base, to: 'canceled', from: ['pending_approval', 'approved'], notByCreator: false, eventOf: canceledEvent };
  const result = await deps.payouts.move(move);
  switch (result.kind) {
    case 'moved':
      return result.payout;
    case 'not_found':
      throw notFound('Payout not found');
    case 'own_payout':
      throw ownPayout();
    case 'unchanged':
    case 'refused':
      if (command.decision === 'cancel') throw payoutNotCancelable(result.payout.status);
      throw payoutNotPendingApproval(result.payout.status);
  }
}

/** The caller's payouts of its mode (a cashier key: its shop's), newest first. */
export async function listPayouts(deps: PayoutDeps, identity: Identity, command: ListPayoutsCommand): Promise<PayoutPage> {
  const who = requireMerchant(identity);
  if (command.shop_id !== null) await deps.shops.getShop(command.shop_id, who);
  const rows = await deps.payouts.list({
    scope: scopeOf(who),
    shopId: command.shop_id,
    status: command.status,
    after: command.cursor === null ? null : decodeCursor(command.cursor),
    limit: command.limit + 1,
  });
  return toPayoutPage(rows, command.limit);
}

/**
 * The test-mode simulator (`POST /api/v1/payouts/{id}/simulate`): the sandbox rail's verdict on a test payout, through
 * the rails' own transitions; an approved payout is moved to processing first. A live payout is not found.
 */
export async function simulatePayout(deps: PayoutDeps, identity: Identity, id: string, status: 'paid' | 'failed'): Promise<PayoutRecord> {
  const payout = await getPayout(deps, identity, id);
  if (payout.livemode) throw notFound('Payout not found');
  if (payout.status === 'approved') await markPayoutProcessing(deps, id);
  else if (payout.status !== 'processing') throw payoutAlreadyFinal(payout.status);
  return status === 'paid' ? markPayoutPaid(deps, id) : markPayoutFailed(deps, id, 'Simulated failure');
}
