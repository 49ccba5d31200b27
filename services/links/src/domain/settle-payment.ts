import type { FailureReason, Identity, SettlePaymentCommand } from '@pl/contracts';
import { linkNotPending, notFound, unavailable } from '@pl/errors';
import { computeFee } from '@pl/money';
import { arrivedKopecksAtAskedRate } from '@pl/providers';
import { requireService } from './access';
import type { Attempt } from './attempt';
import { recordProgress } from './attempt-progress';
import type { LinkRecord, UnresolvedReason, UnresolvedRecording } from './link';
import { paymentSucceeded, unresolvedEvent } from './payment-event';
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
  declined: null,
};

/** Final words that end the attempt alone, the link staying pending for another: a cancel ends it, a decline fails it. */
const ATTEMPT_ENDS: Partial<Record<SettlePaymentCommand['status'], 'ended_unpaid' | 'failed'>> = {
  ended_unpaid: 'ended_unpaid',
  declined: 'failed',
};

/**
 * What the attempt keeps as its provider's last word: the provider's own (`fail`, `SUCCESS`, `cancel`), as operators
 * and the dashboard read it; the platform's status only for a verdict that names none (the simulator's).
 */
const providerWordOf = (command: SettlePaymentCommand): string => command.provider_status ?? command.status;

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

/**
 * The repeat of the callback that moved `link`: it changes nothing and records nothing. A link paid by this payment
 * (its attempt marked paid), or failed by it for the reason this status gives (an underpayment, a hold).
 */
function isThePaymentThatMoved(
  link: LinkRecord,
  command: SettlePaymentCommand,
  status: SettlePaymentCommand['status'],
  attempt: Attempt | null,
): boolean {
  const showsPayment = link.gatewayProvider === command.provider && link.gatewayPaymentId === command.gateway_payment_id;
  if (link.status === 'failed') return showsPayment && link.failureReason !== null && link.failureReason === FAILURE_REASON[status];
  // An attempt read before a concurrent word on the same payment paid the link (a callback racing status sync, or its
  // own repeat) still reads unpaid: a real provider's payment id is the attempt's own, so the link naming it says so.
  const ownPaymentId = attempt !== null && attempt.provider !== 'sandbox' && attempt.payment?.gatewayPaymentId === command.gateway_payment_id;
  if (attempt) return link.status === 'paid' && (attempt.state === 'paid' || (ownPaymentId && showsPayment));
  return link.status === 'paid' && showsPayment;
}

/** Statuses that say money arrived: a link that can no longer take it leaves it unresolved. */
const MONEY_ARRIVED: ReadonlySet<SettlePaymentCommand['status']> = new Set(['paid', 'paid_over', 'underpaid', 'locked']);

/**
 * What arrived, in kopecks: the provider's own RUB figure (Raiffeisen's amount paid), else the coin amount valued at
 * the attempt's own rate, rounded down (a Heleket callback names no RUB value); null when neither is known.
 */
function arrivedKopecks(command: SettlePaymentCommand, attempt: Attempt | null): number | null {
  if (command.arrived_kopecks != null) return command.arrived_kopecks;
  const askedCrypto = attempt?.payment?.payerCryptoAmount;
  if (attempt && askedCrypto && command.arrived_crypto_amount)
    return arrivedKopecksAtAskedRate({ payerAmountKopecks: attempt.payerAmount, payerCryptoAmount: askedCrypto }, command.arrived_crypto_amount);
  return null;
}

/**
 * The status judged against what the attempt asked: a provider that reports `paid` with the amount paid, not the
 * amount asked (Raiffeisen's SUCCESS), paid less (`underpaid`) or more (`paid_over`) when the figures differ.
 */
function judged(command: SettlePaymentCommand, attempt: Attempt | null): SettlePaymentCommand['status'] {
  const arrived = command.arrived_kopecks;
  if (command.status !== 'paid' || attempt === null || arrived == null || arrived === attempt.payerAmount) return command.status;
  return arrived < attempt.payerAmount ? 'underpaid' : 'paid_over';
}

/**
 * The unresolved payment of `amount` kopecks that arrived for `link` (by `attempt`, when known). Settling it credits
 * what arrived less the fee at the attempt's method rate, the fee on the shop whatever its fee_payer (the buyer paid
 * what it paid); a late or duplicate payment of exactly what was asked keeps the amounts the attempt asked (its fee as
 * the link split it), as today's late payments do.
 */
function unresolvedOf(
  deps: LinkDeps,
  link: LinkRecord,
  command: SettlePaymentCommand,
  attempt: Attempt | null,
  reason: UnresolvedReason,
  amount: number,
): UnresolvedRecording {
  const asked = attempt ?? link;
  const fee = computeFee(amount, attempt?.feeBps ?? link.feeBps);
  // A late or duplicate payment of exactly what its attempt asked is that attempt's payment: its amounts as asked.
  const exact = (reason === 'late' || reason === 'duplicate') && amount === asked.payerAmount;
  const payment = attempt?.payment ?? null;
  const crypto = payment !== null && payment.payerCryptoAmount !== null;
  return {
    payment: {
      id: deps.newId(),
      linkId: link.id,
      reason,
      provider: command.provider,
      gatewayPaymentId: command.gateway_payment_id,
      providerOrderId: attempt?.orderId ?? null,
      payerAmount: asked.payerAmount,
      amount,
      merchantCredit: exact ? asked.merchantCredit : amount - fee,
      platformRevenue: exact ? asked.platformRevenue : fee,
      payerCurrency: crypto ? payment.payerCurrency : null,
      payerCryptoAmount: crypto ? (command.arrived_crypto_amount ?? payment.payerCryptoAmount) : null,
      network: crypto ? payment.network : link.network === 'SBP' ? null : link.network,
      receivedAt: deps.now(),
    },
    eventOf: (recorded) => unresolvedEvent('unresolved_payment.created', recorded, recorded.receivedAt, deps.newId(), deps.eventsTopic),
  };
}

/**
 * What a move of a pending link leaves unresolved: an overpayment's surplus (the link is paid at the asked amount),
 * an underpayment's whole (the link fails `underpaid`), a held payment (the link fails `aml_hold`). Null for the rest,
 * or when what arrived is not known (nothing to record a figure of).
 */
function leftUnresolved(
  deps: LinkDeps,
  link: LinkRecord,
  command: SettlePaymentCommand,
  status: SettlePaymentCommand['status'],
  attempt: Attempt | null,
): UnresolvedRecording | null {
  const arrived = arrivedKopecks(command, attempt);
  const asked = (attempt ?? link).payerAmount;
  if (status === 'paid_over' && arrived !== null && arrived > asked) return unresolvedOf(deps, link, command, attempt, 'overpaid', arrived - asked);
  if (status === 'underpaid' && arrived !== null && arrived > 0) return unresolvedOf(deps, link, command, attempt, 'underpaid', arrived);
  if (status === 'locked') return unresolvedOf(deps, link, command, attempt, 'aml_hold', arrived ?? asked);
  return null;
}

/**
 * A verdict for a link that has left pending (which it never returns to): 409 and the link stays as it is.
 * Money that arrived is the buyer's, though, so unless it repeats the payment that moved the link it is recorded
 * as an unresolved payment first, once per (provider payment, reason): held for AML checks, `aml_hold`; after another
 * attempt paid the link, `duplicate`; after the link closed, `late`. The 409 (which the gateway answers the provider 200)
 * goes only after the record committed: a failed write is an error the provider retries, never an answer that lets it
 * forget the payment.
 */
async function refuseSettled(
  deps: LinkDeps,
  link: LinkRecord,
  command: SettlePaymentCommand,
  status: SettlePaymentCommand['status'],
  attempt: Attempt | null,
): Promise<never> {
  if (MONEY_ARRIVED.has(status) && !isThePaymentThatMoved(link, command, status, attempt)) {
    const reason: UnresolvedReason = status === 'locked' ? 'aml_hold' : link.status === 'paid' ? 'duplicate' : 'late';
    const amount = arrivedKopecks(command, attempt) ?? (attempt ?? link).payerAmount;
    if (amount > 0) {
      const { payment, eventOf } = unresolvedOf(deps, link, command, attempt, reason, amount);
      await deps.unresolvedPayments.record(payment, eventOf, LINKS_OWN_MODE);
    }
    if (attempt && status !== 'locked')
      await deps.attempts.markState(attempt, link.status === 'paid' ? 'duplicate' : 'late', providerWordOf(command));
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
  if (!deps.providers.byName(command.provider)) throw notFound(`Unknown payment provider ${command.provider}`);
  const attempt = await deps.attempts.findForPayment(command.provider, command.gateway_payment_id, command.order_id);
  const status = judged(command, attempt);
  const to = LINK_MOVE[status];
  for (let tries = 1; ; tries += 1) {
    const link = attempt ? await linkOf(deps, attempt) : await findSettledLink(deps, command, to);
    if (to === null) {
      const ended = ATTEMPT_ENDS[command.status];
      if (attempt && ended && link.status === 'pending') await deps.attempts.markState(attempt, ended, providerWordOf(command));
      else if (attempt && link.status === 'pending') await recordProgress(deps, attempt, command);
      return link;
    }
    if (link.status !== 'pending') return refuseSettled(deps, link, command, status, attempt);
    if (to === 'failed' && attempt && !attempt.current) {
      // The buyer went on to another attempt; what arrived for this one is still theirs to get back.
      const left = leftUnresolved(deps, link, command, status, attempt);
      if (left) await deps.unresolvedPayments.record(left.payment, left.eventOf, LINKS_OWN_MODE);
      await deps.attempts.markState(attempt, 'failed', providerWordOf(command));
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
        failureReason: FAILURE_REASON[status] ?? null,
        gatewayProvider: command.provider,
        gatewayPaymentId: command.gateway_payment_id,
        at,
        unresolved: leftUnresolved(deps, link, command, status, attempt),
      },
      event,
    );
    if (settled) {
      deps.crashPoints?.reached('links.after-settle-commit');
      // After the link's move committed: a crash here leaves the attempt unfinished, which status sync reads again.
      if (attempt) await deps.attempts.markState(attempt, to, providerWordOf(command));
      return settled;
    }
  }
}
