import { isAppError } from '@pl/errors';
import {
  FINAL_PAYMENT_STATUSES,
  judgeArrivedAmount,
  ProviderRefusedError,
  type PaymentProvider,
  type PaymentState,
  type RefundState,
} from '@pl/providers';
import type { RefundDeps } from './refund';
import { settleRefundByProvider } from './refund-settle';
import { settleVerdict } from './settle-payment';
import { SYNC_HORIZON_HOURS, type StatusSyncStore, type SyncAttempt, type SyncRefund } from './status-sync-store';

/** What status sync needs: the settle paths of payments and refunds, and its own statements. */
export interface SyncDeps extends RefundDeps {
  sync: StatusSyncStore;
}

/** What one read of an attempt found and did (the operator's `payment:sync` prints these). */
export interface AttemptSync {
  order_id: string;
  provider: string;
  gateway_payment_id: string | null;
  /** The provider's own status word, or null when it knows no payment (yet) or was not read. */
  provider_status: string | null;
  state_before: string;
  state_after: string;
  link_status_before: string;
  link_status_after: string;
  /** Canceled at its provider by this read (an unpaid attempt nobody may pay any more). */
  canceled: boolean;
  /** Whether sync reads it again. */
  done: boolean;
  /** Why the read did not complete (the provider unavailable, ...); null when it did. */
  error: string | null;
}

export interface RefundSync {
  id: string;
  provider: string;
  gateway_refund_id: string | null;
  provider_status: string | null;
  status_before: string;
  status_after: string;
  done: boolean;
  error: string | null;
}

const HORIZON_MS = SYNC_HORIZON_HOURS * 3_600_000;
const isCode = (e: unknown, code: string): boolean => isAppError(e) && e.code === code;
/** A read's failure as the report and the log carry it: the error's message, cut (never a provider's body). */
const describe = (e: unknown): string => (e instanceof Error ? e.message : 'error').slice(0, 500);
/** A provider's status word as the report carries it. */
const wordOf = (status: string | null): string | null => (status === null ? null : status.slice(0, 500));

/** Attempt states not yet final on our side (superseded ones may still be paid at their provider). */
const UNFINISHED: ReadonlySet<string> = new Set(['creating', 'pending', 'unknown']);

/**
 * A payment's state, learned by a read instead of a callback, takes the callback's path: judged against what its
 * attempt asked, then `settleVerdict` with the attempt's order id. A verdict for a link no longer pending is what the
 * callback route answers 200 to (a repeat, or a late payment recorded before the answer): done here too.
 */
async function settleRead(deps: SyncDeps, provider: PaymentProvider, attempt: SyncAttempt, state: PaymentState): Promise<PaymentState> {
  const judged = judgeArrivedAmount(state, attempt.payerAmount);
  try {
    await settleVerdict(deps, {
      provider: provider.name,
      gateway_payment_id: state.gatewayPaymentId,
      order_id: attempt.orderId,
      status: judged.status,
      // As the same callback would carry them: the checkout's confirming and remainder states read them.
      provider_status: judged.providerStatus,
      remaining_crypto_amount: judged.remainingCryptoAmount,
      arrived_crypto_amount: judged.arrivedCryptoAmount,
      arrived_kopecks: judged.arrivedKopecks,
    });
  } catch (e) {
    if (!isCode(e, 'payment_link.err.not_pending')) throw e;
  }
  return judged;
}

/**
 * An unpaid attempt nobody may pay any more (replaced, or its link closed) is canceled at its provider where it can
 * be; a refusal means there is nothing left to cancel (already canceled or expired there). A cancel the provider did
 * not answer is tried again at the next read. Returns whether it canceled now, and whether the attempt is over: one
 * canceled at an earlier read that still reads unpaid can no longer be paid.
 */
async function cancelIfAbandoned(deps: SyncDeps, provider: PaymentProvider, attempt: SyncAttempt): Promise<{ canceled: boolean; over: boolean }> {
  const abandoned = attempt.linkStatus !== 'pending' || attempt.state === 'superseded';
  if (!abandoned || provider.cancelsPayments !== true || attempt.gatewayPaymentId === null) return { canceled: false, over: false };
  if (attempt.providerCanceledAt !== null) return { canceled: false, over: true };
  try {
    await provider.cancelPayment({ gatewayPaymentId: attempt.gatewayPaymentId, orderId: attempt.orderId }, { timeoutMs: deps.providerTimeoutMs });
  } catch (e) {
    if (!(e instanceof ProviderRefusedError)) throw e;
  }
  await deps.sync.recordCanceled(attempt);
  return { canceled: true, over: false };
}

/** Reads one attempt from its provider and applies what it says; throws when the provider could not be read. */
async function readAttempt(deps: SyncDeps, attempt: SyncAttempt, now: Date): Promise<Pick<AttemptSync, 'provider_status' | 'canceled' | 'done'>> {
  const provider = deps.providers.byName(attempt.provider);
  if (!provider) throw new Error(`provider ${attempt.provider} is not configured here`);
  const pastHorizon = now.getTime() > attempt.linkExpiresAt.getTime() + HORIZON_MS;
  // Nothing can be in flight any more: the select's call has its deadline, and its answer is written right after.
  const callOver = now.getTime() > attempt.createdAt.getTime() + 2 * deps.providerTimeoutMs;
  if (attempt.gatewayPaymentId === null && provider.readsByOrderId !== true) {
    // Raiffeisen reads a QR by its qrId only, and a QR whose answer was lost reached no buyer: nobody can pay it.
    if (callOver) await deps.sync.endUnpaid(attempt, 'unknown');
    return { provider_status: null, canceled: false, done: callOver };
  }
  const state = await provider.getPayment(
    { gatewayPaymentId: attempt.gatewayPaymentId ?? '', orderId: attempt.orderId },
    { timeoutMs: deps.providerTimeoutMs },
  );
  if (state === null) {
    if (attempt.gatewayPaymentId === null) {
      // The provider never made it: the call's outcome was unknown, and it did nothing.
      if (callOver) await deps.sync.endUnpaid(attempt, 'unknown');
      await deps.sync.attemptRead(attempt, callOver);
      return { provider_status: null, canceled: false, done: callOver };
    }
    return finishUnpaid(deps, provider, attempt, pastHorizon, null);
  }
  if (attempt.gatewayPaymentId === null) await deps.sync.recordFoundPayment(attempt, state.gatewayPaymentId);
  const judged = await settleRead(deps, provider, { ...attempt, gatewayPaymentId: state.gatewayPaymentId }, state);
  if (FINAL_PAYMENT_STATUSES.has(judged.status)) {
    // The provider will not change it again; an attempt its link's verdict did not finish ends here.
    if (judged.status === 'ended_unpaid' || judged.status === 'declined')
      await deps.sync.endUnpaid(attempt, judged.status === 'declined' ? 'failed' : 'ended_unpaid');
    await deps.sync.attemptRead(attempt, true);
    return { provider_status: state.providerStatus, canceled: false, done: true };
  }
  if (judged.status === 'unpaid')
    return finishUnpaid(deps, provider, { ...attempt, gatewayPaymentId: state.gatewayPaymentId }, pastHorizon, state.providerStatus);
  await deps.sync.attemptRead(attempt, pastHorizon);
  return { provider_status: state.providerStatus, canceled: false, done: pastHorizon };
}

async function finishUnpaid(
  deps: SyncDeps,
  provider: PaymentProvider,
  attempt: SyncAttempt,
  pastHorizon: boolean,
  providerStatus: string | null,
): Promise<Pick<AttemptSync, 'provider_status' | 'canceled' | 'done'>> {
  const { canceled, over } = await cancelIfAbandoned(deps, provider, attempt);
  if (over && UNFINISHED.has(attempt.state)) await deps.sync.endUnpaid(attempt, 'ended_unpaid');
  const done = over || pastHorizon;
  await deps.sync.attemptRead(attempt, done);
  return { provider_status: providerStatus, canceled, done };
}

/**
 * Status sync of one attempt (docs/providers.md, "Status sync"): its provider's state read now and applied as its
 * callback would be. A provider that cannot be read leaves the attempt due at its next interval.
 */
export async function syncAttempt(deps: SyncDeps, attempt: SyncAttempt): Promise<AttemptSync> {
  const base = { order_id: attempt.orderId, provider: attempt.provider, state_before: attempt.state, link_status_before: attempt.linkStatus };
  let outcome: Pick<AttemptSync, 'provider_status' | 'canceled' | 'done'>;
  let error: string | null = null;
  try {
    outcome = await readAttempt(deps, attempt, deps.now());
  } catch (e) {
    error = describe(e);
    outcome = { provider_status: null, canceled: false, done: false };
  }
  const after = await deps.sync.stateOf(attempt);
  return {
    ...base,
    gateway_payment_id: after?.gatewayPaymentId ?? attempt.gatewayPaymentId,
    ...outcome,
    provider_status: wordOf(outcome.provider_status),
    state_after: after?.state ?? attempt.state,
    link_status_after: after?.linkStatus ?? attempt.linkStatus,
    error,
  };
}

/** The provider's refund for a refund whose hand-over never got an answer recorded; null when it must be left alone. */
async function handOverAgain(deps: SyncDeps, provider: PaymentProvider, refund: SyncRefund): Promise<RefundState | null> {
  const ref = { refundId: refund.id, gatewayRefundId: null, gatewayPaymentId: refund.linkGatewayPaymentId ?? '', orderId: refund.orderId };
  const ctx = { timeoutMs: deps.providerTimeoutMs };
  // Read first: Raiffeisen knows the refund by our refund id; Heleket shows the payment's refund, if one is under way.
  const known = await provider.getRefund(ref, ctx);
  // A refund that names no refund id of ours (Heleket's is the payment's) is ours only if no other refund of the
  // payment could be the one shown: otherwise an operator settles it (refund:settle), nothing is sent again.
  if (known !== null && (known.refundId === refund.id || refund.otherRefunds === 0)) return known;
  if (known !== null) return null;
  return provider.createRefund(
    {
      refundId: refund.id,
      orderId: refund.orderId,
      gatewayPaymentId: refund.linkGatewayPaymentId ?? '',
      amountKopecks: refund.amount,
      whole: refund.amount === refund.linkAmount,
      destination: refund.destination,
      description: refund.reason,
      // Its first call may have reached the provider: the adapter reads the provider's state before sending.
      firstCall: false,
    },
    ctx,
  );
}

async function readRefund(
  deps: SyncDeps,
  refund: SyncRefund,
  now: Date,
): Promise<Pick<RefundSync, 'provider_status' | 'gateway_refund_id' | 'done'>> {
  const provider = deps.providers.byName(refund.provider);
  if (!provider) throw new Error(`provider ${refund.provider} is not configured here`);
  const horizon = Math.max(refund.linkExpiresAt.getTime(), refund.createdAt.getTime()) + HORIZON_MS;
  const pastHorizon = now.getTime() > horizon;
  let state: RefundState | null;
  try {
    state =
      refund.gatewayRefundId === null
        ? await handOverAgain(deps, provider, refund)
        : await provider.getRefund(
            {
              refundId: refund.id,
              gatewayRefundId: refund.gatewayRefundId,
              gatewayPaymentId: refund.linkGatewayPaymentId ?? '',
              orderId: refund.orderId,
            },
            { timeoutMs: deps.providerTimeoutMs },
          );
  } catch (e) {
    if (!(e instanceof ProviderRefusedError)) throw e;
    // The provider refused the refund: it fails through the settle path, its posting reversed with the failure.
    await settleRefundByProvider(deps, refund.id, 'failed', e.providerMessage.slice(0, 500));
    await deps.sync.refundRead(refund, true);
    return { provider_status: null, gateway_refund_id: refund.gatewayRefundId, done: true };
  }
  if (state === null) {
    await deps.sync.refundRead(refund, pastHorizon);
    return { provider_status: null, gateway_refund_id: refund.gatewayRefundId, done: pastHorizon };
  }
  if (refund.gatewayRefundId === null) await deps.refunds.recordAcceptance(refund.id, state.gatewayRefundId);
  if (state.status === 'pending') {
    await deps.sync.refundRead(refund, pastHorizon);
    return { provider_status: state.providerStatus, gateway_refund_id: state.gatewayRefundId, done: pastHorizon };
  }
  try {
    await settleRefundByProvider(deps, refund.id, state.status, state.status === 'failed' ? (state.failureReason ?? state.providerStatus) : null);
  } catch (e) {
    // Final already with the other word (a callback was first): money that moved is not moved back, as for a callback.
    if (!isCode(e, 'refund.err.not_pending')) throw e;
  }
  await deps.sync.refundRead(refund, true);
  return { provider_status: state.providerStatus, gateway_refund_id: state.gatewayRefundId, done: true };
}

/**
 * Status sync of one refund pending at a real provider: read (or, never answered, handed over again the way its
 * provider allows without refunding twice), and a final word settled through the refund callback's path.
 */
export async function syncRefund(deps: SyncDeps, refund: SyncRefund): Promise<RefundSync> {
  const base = { id: refund.id, provider: refund.provider, status_before: 'pending' };
  let outcome: Pick<RefundSync, 'provider_status' | 'gateway_refund_id' | 'done'>;
  let error: string | null = null;
  try {
    outcome = await readRefund(deps, refund, deps.now());
  } catch (e) {
    error = describe(e);
    outcome = { provider_status: null, gateway_refund_id: refund.gatewayRefundId, done: false };
  }
  return {
    ...base,
    ...outcome,
    provider_status: wordOf(outcome.provider_status),
    status_after: (await deps.sync.refundStatusOf(refund.id)) ?? 'pending',
    error,
  };
}

/** `payment:sync --link ID`: every attempt and pending refund of the link read now, in order. */
export async function syncLink(deps: SyncDeps, linkId: string): Promise<{ attempts: AttemptSync[]; refunds: RefundSync[] }> {
  const attempts: AttemptSync[] = [];
  for (const attempt of await deps.sync.attemptsOfLink(linkId)) attempts.push(await syncAttempt(deps, attempt));
  const refunds: RefundSync[] = [];
  for (const refund of await deps.sync.pendingRefundsOfLink(linkId)) refunds.push(await syncRefund(deps, refund));
  return { attempts, refunds };
}
