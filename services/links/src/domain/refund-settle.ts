import { REFUND_FAILURE_REASON_MAX_LENGTH, type Identity, type SettleRefundCommand } from '@pl/contracts';
import { invalidField, notFound, refundNotPending } from '@pl/errors';
import { requireMerchant, requireService } from './access';
import type { RefundDeps, RefundRecord, RefundTarget, RefundVerdict } from './refund';
import { assertRefundVisible } from './refund-read';
import { refundSettledEvent } from './refund-view';

function targetOf(command: SettleRefundCommand): RefundTarget {
  if (command.refund_id !== null) return { refundId: command.refund_id };
  if (command.provider !== null && command.gateway_refund_id !== null) {
    return { provider: command.provider, gatewayRefundId: command.gateway_refund_id };
  }
  throw invalidField('refund_id', 'or provider and gateway_refund_id are required', 'invalid_type');
}

/**
 * The one path every refund's final word takes (a provider's callback, the operator, the test simulator): a pending
 * refund moves to `succeeded` or `failed` with its link's sums, its ledger posting and its event in one transaction.
 * A repeat of the word it already had changes nothing and answers the refund; the other word for a final refund is
 * 409, since money that moved is not moved back by a late callback.
 */
async function settleVerdict(deps: RefundDeps, target: RefundTarget, verdict: RefundVerdict): Promise<RefundRecord> {
  const settled = await deps.refunds.settle(target, verdict, (refund) => refundSettledEvent(refund, deps.newId(), deps.eventsTopic));
  if (!settled) throw notFound('Refund not found');
  if (settled.kind === 'already_final' && settled.refund.status !== verdict.status) throw refundNotPending(settled.refund.status);
  return settled.refund;
}

/**
 * A provider's failure reason as merchants read it (the refund object, `refund.failed`, the dashboard): one line, every
 * run of white space, control or bidi character a single space, a lone surrogate U+FFFD, at most 500 code points;
 * null when nothing is left. The provider's word on the money is kept whatever its text holds: refusing the callback
 * over a line feed would leave the refund pending, its money held, while the provider retries the same text.
 */
function displayableReason(reason: string | null): string | null {
  if (reason === null) return null;
  const line = reason
    .replace(/\p{Cs}/gu, '\ufffd')
    .replace(/[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069\s]+/gu, ' ')
    .trim();
  // Code points, the unit lengths are counted in (docs/product-decisions.md, "Limits and defaults").
  const kept = Array.from(line).slice(0, REFUND_FAILURE_REASON_MAX_LENGTH).join('').trimEnd();
  return kept === '' ? null : kept;
}

/** `links.refunds.settle`: a platform service (the gateway for a provider's callback, the operator's CLI). */
export async function settleRefund(deps: RefundDeps, identity: Identity, command: SettleRefundCommand): Promise<RefundRecord> {
  requireService(identity);
  return settleVerdict(deps, targetOf(command), {
    status: command.status,
    // Only a failure has a reason; a success's would contradict it.
    failureReason: command.status === 'failed' ? displayableReason(command.failure_reason) : null,
  });
}

/**
 * The test-mode stand-in for the provider's refund callback, for the caller's own test refund: a live credential,
 * a live refund or an unknown one is 404 (the simulator never settles real money); a final one is 409. It then
 * takes the provider's path, so what a merchant tests is what live refunds do.
 */
export async function simulateRefund(
  deps: RefundDeps,
  identity: Identity,
  command: { id: string; status: 'succeeded' | 'failed' },
): Promise<RefundRecord> {
  const who = requireMerchant(identity);
  const refund = who.mode === 'test' ? await deps.refunds.findById(command.id, { mode: 'test' }) : null;
  if (!refund) throw notFound('Refund not found');
  assertRefundVisible(refund, who);
  if (refund.status !== 'pending') throw refundNotPending(refund.status);
  return settleVerdict(
    deps,
    { refundId: refund.id },
    {
      status: command.status,
      failureReason: command.status === 'failed' ? 'Failed by the test-mode simulator' : null,
    },
  );
}

/**
 * A provider's final word on a refund learned by status sync (a read, or a repeated hand-over, in place of a lost
 * callback): the path the callback takes, so the same checks, posting and event apply, once.
 */
export async function settleRefundByProvider(
  deps: RefundDeps,
  refundId: string,
  status: 'succeeded' | 'failed',
  failureReason: string | null,
): Promise<RefundRecord> {
  return settleVerdict(deps, { refundId }, { status, failureReason: status === 'failed' ? displayableReason(failureReason) : null });
}
