import type { FailureReason, Identity, SettlePaymentCommand } from '@pl/contracts';
import { linkNotPending, notFound, unavailable } from '@pl/errors';
import { requireService } from './access';
import type { Attempt } from './attempt';
import { recordProgress } from './attempt-progress';
import type { LinkRecord } from './link';
import { paymentSucceeded } from './payment-event';
import { LINKS_OWN_MODE, type LinkDeps } from './ports';

/**
 * What a provider's payment status does to its link (docs/product-decisions.md): paid in full or over moves it to paid
 * (a surplus is the unresolved payments' to record), a final failure (the provider's, an underpayment, an AML hold)
 * to failed; every other status (unpaid, confirming, partly paid, ended unpaid) leaves the link pending.
 */
/** The link's `failure_reason` of each status that fails it. */
const FAILURE_REASON: Readonly<Partial<Record<SettlePaymentCommand['status'], FailureReason>>> = {
  failed: 'provider_failed',
  underpaid: 'underpaid',
  locked: 'aml_hold',
};

const LINK_MOVE: Readonly<Record<SettlePaymentCommand['status'], 'paid' | 'failed' | null>> = {
  paid: 'paid',
  paid_over: 'paid',
  failed: 'failed',
  underpaid: 'failed',
  locked: 'failed',
  unpaid: null,
  confirming: null,
  partially_paid: null,
  ended_unpaid: null,
};

/** Reads and settles attempted before giving up on a link whose selection keeps changing under the payment. */
const MAX_TRIES = 3;

/**
 * The link a provider's payment id names: the one that stored it at selection, or, for a link paid
 * with no method selected, the one the provider derives from the id. A pending link that selected
 * another payment does not match: it awaits that one. A `paid` whose derived link has already left
 * pending with another payment does: a second payment for a settled link is money all the same, and
 * is recorded as a late payment. A payment reaches its link in the link's own mode.
 */
async function findSettledLink(deps: LinkDeps, command: SettlePaymentCommand, to: 'paid' | 'failed' | null): Promise<LinkRecord> {
  const provider = deps.providers.byName(command.provider);
  if (!provider) throw notFound(`Unknown payment provider ${command.provider}`);
  const derivedId = provider === deps.providers.sandbox ? deps.providers.sandbox.linkIdFor(command.gateway_payment_id) : null;
  const link = await deps.links.findForPayment(provider.name, command.gateway_payment_id, derivedId, LINKS_OWN_MODE);
  if (link) return link;
  if (derivedId !== null && to === 'paid') {
    const derived = await deps.links.findById(derivedId, LINKS_OWN_MODE);
    if (derived && derived.status !== 'pending') return derived;
  }
  throw notFound('Payment not found');
}

/** The repeat of the callback that paid `link`: it changes nothing and records nothing. */
function isThePaymentThatPaid(link: LinkRecord, command: SettlePaymentCommand, attempt: Attempt | null): boolean {
  // An attempt read before a concurrent word on the same payment paid the link (a callback racing status sync, or its
  // own repeat) still reads unpaid: a real provider's payment id is the attempt's own, so the link naming it says so.
  const ownPaymentId = attempt?.provider !== 'sandbox' && attempt?.payment?.gatewayPaymentId === command.gateway_payment_id;
  if (attempt)
    return (
      link.status === 'paid' &&
      (attempt.state === 'paid' ||
        (ownPaymentId && link.gatewayPaymentId === command.gateway_payment_id && link.gatewayProvider === command.provider))
    );
  return link.status === 'paid' && link.gatewayProvider === command.provider && link.gatewayPaymentId === command.gateway_payment_id;
}

/**
 * A verdict for a link that has left pending (which it never returns to): 409 and the link stays as it is.
 * A `paid` is the buyer's money, though, so unless it repeats the payment that paid the link it is recorded
 * as a late payment first, once per provider payment (after another attempt paid the link, that is a duplicate
 * payment; after the link closed, a late one). The 409 (which the gateway answers the provider 200) goes only
 * after the record committed: a failed write is an error the provider retries, never an answer that lets it
 * forget the payment.
 */
async function refuseSettled(
  deps: LinkDeps,
  link: LinkRecord,
  command: SettlePaymentCommand,
  to: 'paid' | 'failed',
  attempt: Attempt | null,
): Promise<never> {
  if (to === 'paid' && !isThePaymentThatPaid(link, command, attempt)) {
    await deps.latePayments.recordIfLate(
      {
        id: deps.newId(),
        linkId: link.id,
        provider: command.provider,
        gatewayPaymentId: command.gateway_payment_id,
        receivedAt: deps.now(),
      },
      LINKS_OWN_MODE,
    );
    if (attempt) await deps.attempts.markState(attempt, link.status === 'paid' ? 'duplicate' : 'late', command.status);
  }
  throw linkNotPending(link.status);
}

/** Whether the link shows this attempt's amounts and payment (the event and the ledger report what it shows). */
const showsAttempt = (link: LinkRecord, attempt: Attempt): boolean =>
  attempt.payment !== null &&
  link.gatewayProvider === attempt.provider &&
  link.gatewayPaymentId === attempt.payment.gatewayPaymentId &&
  link.payerAmount === attempt.payerAmount &&
  link.merchantCredit === attempt.merchantCredit;

/** The link of an attempt, in its own mode. */
async function linkOf(deps: LinkDeps, attempt: Attempt): Promise<LinkRecord> {
  const link = await deps.links.findById(attempt.linkId, LINKS_OWN_MODE);
  if (!link) throw notFound('Payment not found');
  return link;
}

/**
 * A provider's word on a payment (its callback already verified by the gateway). `paid` moves the link to paid
 * and writes `payment.succeeded` to the outbox in the same statement; a final failure moves it to failed. The move
 * is conditional on the link being pending, so of a payment racing a cancel or an expiry exactly one wins, and a
 * repeated callback is a 409 that changes nothing (the gateway answers the provider 200 for it). A link that is
 * due but not yet swept can still be paid: the money arrived. A `paid` that loses (the link expired, was canceled,
 * failed, or another attempt paid it) is recorded as a late payment.
 *
 * The payment names its attempt (by the order id the provider echoes, else by its payment id). A payment for any
 * attempt of a pending link pays it, once, at that attempt's amounts: an earlier attempt's are put back on the link
 * first. A failure of an attempt the link no longer shows fails only that attempt: the buyer went on to another.
 *
 * The event is built from the link as read, so the move also requires the link to be still as read; a failed move
 * reads the link again: a selection made in between is settled anew, a move made in between (the sweeper, a
 * cancel) makes the payment late. So every `paid` is either settled or recorded before it is answered. `paid_at`
 * is this service's clock.
 */
export async function settlePayment(deps: LinkDeps, identity: Identity, command: SettlePaymentCommand): Promise<LinkRecord> {
  requireService(identity);
  return settleVerdict(deps, command);
}

/** {@link settlePayment} past its access check: the one path every verdict takes, a provider's or the simulator's. */
export async function settleVerdict(deps: LinkDeps, command: SettlePaymentCommand): Promise<LinkRecord> {
  const to = LINK_MOVE[command.status];
  if (!deps.providers.byName(command.provider)) throw notFound(`Unknown payment provider ${command.provider}`);
  const attempt = await deps.attempts.findForPayment(command.provider, command.gateway_payment_id, command.order_id);
  for (let tries = 1; ; tries += 1) {
    const link = attempt ? await linkOf(deps, attempt) : await findSettledLink(deps, command, to);
    if (to === null) {
      if (attempt && command.status === 'ended_unpaid' && link.status === 'pending')
        await deps.attempts.markState(attempt, 'ended_unpaid', command.status);
      else if (attempt && link.status === 'pending') await recordProgress(deps, attempt, command);
      return link;
    }
    if (link.status !== 'pending') return refuseSettled(deps, link, command, to, attempt);
    if (to === 'failed' && attempt && !attempt.current) {
      await deps.attempts.markState(attempt, 'failed', command.status);
      return link;
    }
    if (tries > MAX_TRIES) throw unavailable('The payment link kept changing while the payment was settled; retry');
    if (attempt?.payment && !showsAttempt(link, attempt)) {
      await deps.attempts.restoreOnLink(attempt);
      continue;
    }
    const at = deps.now();
    const event = to === 'paid' ? paymentSucceeded({ ...link, status: 'paid', paidAt: at }, deps.newId(), deps.eventsTopic) : null;
    const settled = await deps.links.settle(
      link,
      {
        to,
        failureReason: FAILURE_REASON[command.status] ?? null,
        gatewayProvider: command.provider,
        gatewayPaymentId: command.gateway_payment_id,
        at,
      },
      event,
    );
    if (settled) {
      deps.crashPoints?.reached('links.after-settle-commit');
      // After the link's move committed: a crash here leaves the attempt unfinished, which status sync reads again.
      if (attempt) await deps.attempts.markState(attempt, to, command.status);
      return settled;
    }
  }
}
