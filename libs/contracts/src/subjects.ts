import { z } from 'zod';
import {
  amountKopecks,
  CURSOR_MAX_LENGTH,
  linkDescription,
  expiresInMinutes,
  linkStatus,
  linkOrderId,
  PAGE_LIMIT_MAX,
  positiveId,
  returnUrl,
  uuid,
} from './fields';
import { identifierText } from './text';
import { paymentLink, paymentLinkPage } from './link';
import { shopView } from './shop';
import { buyerLinkView, cryptoNetwork } from './checkout';
import { webhookDelivery, webhookDeliveryList, webhookTarget } from './deliveries';
import { idempotencyClaim, idempotentLinkReply } from './idempotency';
import {
  createShopCommand,
  listShopsCommand,
  merchantShop,
  merchantShopPage,
  reissueCashierKeyCommand,
  reissuedCashierKey,
  rotatedSecret,
  rotateSecretCommand,
  shopIdCommand,
  updateShopCommand,
} from './merchant-shop';
import { deliveryStatus } from './deliveries';
import { eventIdCommand, listEventsCommand, webhookEvent, webhookEventPage } from './events';
import { listUnresolvedCommand, resolveUnresolvedCommand, unresolvedIdCommand, unresolvedPayment, unresolvedPaymentPage } from './unresolved';
import { createRefundCommand, idempotentRefundReply, listRefundsCommand, refund, refundIdCommand, refundPage, settleRefundCommand } from './refunds';
import { paymentSyncCommand, paymentSyncReport } from './payment-sync';
import { payoutSyncCommand, payoutSyncReport, settleHeleketPayoutCommand } from './heleket-payouts';
import { balance, balanceCommand, balanceTransactionPage, listBalanceTransactionsCommand } from './ledger';
import { dailyReportCommand, dailyReportPage } from './reports';
import { paymentAttemptList } from './attempts';
import {
  createPayoutCommand,
  idempotentPayoutReply,
  listPayoutsCommand,
  payout,
  payoutDecisionCommand,
  payoutIdCommand,
  payoutPage,
  simulatePayoutCommand,
} from './payouts';
import { summary, summaryCommand } from './reports';
import {
  listPayoutSchedulesCommand,
  nextPayout,
  nextPayoutCommand,
  payoutContext,
  payoutContextCommand,
  payoutSchedulePage,
  setPayoutScheduleCommand,
} from './payout-schedule';

/** A NATS request-reply subject with the contract of both directions. */
export interface SubjectContract<Req extends z.ZodType, Res extends z.ZodType> {
  readonly name: string;
  readonly request: Req;
  readonly response: Res;
}

const subject = <Req extends z.ZodType, Res extends z.ZodType>(name: string, request: Req, response: Res) =>
  ({ name, request, response }) as const satisfies SubjectContract<Req, Res>;

export const createLinkCommand = z.strictObject({
  shop_id: positiveId.optional(),
  amount_kopecks: amountKopecks,
  order_id: linkOrderId.nullable(),
  description: linkDescription.nullable(),
  expires_in_minutes: expiresInMinutes,
  return_url: returnUrl.nullable(),
});
export type CreateLinkCommand = z.infer<typeof createLinkCommand>;

export const listLinksCommand = z.strictObject({
  limit: z.number().int().min(1).max(PAGE_LIMIT_MAX),
  cursor: identifierText(CURSOR_MAX_LENGTH).nullable(),
  status: linkStatus.nullable(),
  shop_id: positiveId.nullable(),
  order_id: linkOrderId.nullable(),
});
export type ListLinksCommand = z.infer<typeof listLinksCommand>;

export const linkIdCommand = z.strictObject({ id: uuid });

/** A create that carried an `Idempotency-Key`: the links service keeps the key with the link it creates. */
export const createLinkOnceCommand = createLinkCommand.extend({ idempotency: idempotencyClaim });
export type CreateLinkOnceCommand = z.infer<typeof createLinkOnceCommand>;

/** A cancel that carried an `Idempotency-Key`. */
export const cancelLinkOnceCommand = z.strictObject({ id: uuid, idempotency: idempotencyClaim });
export type CancelLinkOnceCommand = z.infer<typeof cancelLinkOnceCommand>;

export const selectMethodCommand = z.strictObject({
  id: uuid,
  method: z.enum(['crypto', 'sbp']),
  network: cryptoNetwork.nullable(),
});
export type SelectMethodCommand = z.infer<typeof selectMethodCommand>;

/**
 * A payment's state as its provider reports it (`PaymentStatus` of @pl/providers): what links does with each is
 * in settle-payment.ts. `paid` and `failed` are what the sandbox and the operators' `payment:confirm` send.
 */
export const PROVIDER_PAYMENT_STATUSES = [
  'unpaid',
  'confirming',
  'partially_paid',
  'paid',
  'paid_over',
  'underpaid',
  'ended_unpaid',
  'declined',
  'failed',
  'locked',
] as const;

/**
 * A provider's word on a payment, after the gateway verified its callback. `order_id` is the attempt's provider
 * order id (`<link id>-<n>`) when the provider echoes it; without it the payment id names the attempt.
 */
export const settlePaymentCommand = z.strictObject({
  provider: z.string().min(1).max(64),
  gateway_payment_id: z.string().min(1).max(200),
  order_id: z.string().min(1).max(64).nullable().default(null),
  status: z.enum(PROVIDER_PAYMENT_STATUSES),
  /** The provider's own status word (`confirm_check`, ...), kept on the attempt for the checkout and the dashboard. */
  provider_status: z.string().max(200).nullish(),
  /** For `partially_paid`: the coin amount still to send, as the provider wrote it (the checkout shows it). */
  remaining_crypto_amount: z.string().max(64).nullish(),
  /**
   * For `partially_paid`: the coin amount that arrived, as the provider wrote it; what remains is judged from it and
   * the attempt's ask when the provider does not say (a Heleket callback carries no `payer_amount`).
   */
  arrived_crypto_amount: z.string().max(64).nullish(),
  /**
   * What arrived, as the provider said: the RUB value in kopecks where it gives one (Raiffeisen's amount paid); for
   * crypto the coin amount above (Heleket's callbacks give no RUB value: links values it at the attempt's own rate).
   */
  arrived_kopecks: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
});
export type SettlePaymentCommand = z.infer<typeof settlePaymentCommand>;

/**
 * The checkout's test-mode simulator (`POST /p/{id}/simulate`): the verdict a provider would give, for a test
 * link only. It settles through the same path as a provider callback.
 */
export const simulatePaymentCommand = z.strictObject({ id: uuid, status: z.enum(['paid', 'failed']) });
export type SimulatePaymentCommand = z.infer<typeof simulatePaymentCommand>;

export const listDeliveriesCommand = z.strictObject({
  payment_link_id: uuid.nullable(),
  shop_id: positiveId.nullable(),
  status: deliveryStatus.nullable(),
  limit: z.number().int().min(1).max(PAGE_LIMIT_MAX),
  cursor: z.string().nullable(),
});
export type ListDeliveriesCommand = z.infer<typeof listDeliveriesCommand>;

/**
 * A NATS subject of broadcasts: every subscriber, every replica, gets its own copy of each message and nobody
 * answers. Delivery is at most once, so a subscriber must tolerate a lost message.
 */
export interface BroadcastContract<M extends z.ZodType> {
  readonly name: string;
  readonly message: M;
}

const broadcast = <M extends z.ZodType>(name: string, message: M) => ({ name, message }) as const satisfies BroadcastContract<M>;

/**
 * A shop's row changed (status, fee settings, webhook, name): copies of it must be dropped. `shop_id` null
 * means any shop may have changed (the publisher may have missed changes), so every copy goes.
 */
export const shopsChangedMessage = z.strictObject({ shop_id: positiveId.nullable() });
export type ShopsChangedMessage = z.infer<typeof shopsChangedMessage>;

/**
 * API key pairs that stopped working (revoked, or reissued with a grace that ends at `expires_at`): every gateway
 * drops its remembered copy at once, or at `expires_at`. `public_key` null means any key may have changed.
 */
export const credentialsChangedMessage = z.strictObject({ public_key: z.string().max(256).nullable(), expires_at: z.string().nullable() });
export type CredentialsChangedMessage = z.infer<typeof credentialsChangedMessage>;

export const broadcasts = {
  /** Published by the shops service for every committed change of a shop row; links caches shops by it. */
  shopsChanged: broadcast('shops.changed', shopsChangedMessage),
  /** Published by a gateway after an API key is revoked or reissued; every gateway replica evicts its cached copy. */
  credentialsChanged: broadcast('gateway.credentials.changed', credentialsChangedMessage),
} as const;

export const subjects = {
  linksCreate: subject('links.create', createLinkCommand, paymentLink),
  linksGet: subject('links.get', linkIdCommand, paymentLink),
  linksList: subject('links.list', listLinksCommand, paymentLinkPage),
  linksCancel: subject('links.cancel', linkIdCommand, paymentLink),
  /**
   * Create and cancel with an `Idempotency-Key`: their own subjects, because the reply must say whether it is
   * a replay, while the keyless ones keep answering the bare link (which the gateway passes on unparsed).
   */
  linksCreateOnce: subject('links.create_once', createLinkOnceCommand, idempotentLinkReply),
  linksCancelOnce: subject('links.cancel_once', cancelLinkOnceCommand, idempotentLinkReply),
  /** Buyer-facing reads and moves; the gateway calls them with its service identity. */
  linksPublicGet: subject('links.public_get', linkIdCommand, buyerLinkView),
  linksSelect: subject('links.select', selectMethodCommand, buyerLinkView),
  linksSettle: subject('links.settle', settlePaymentCommand, paymentLink),
  linksSimulate: subject('links.simulate', simulatePaymentCommand, buyerLinkView),
  shopsWebhookTarget: subject('shops.webhook_target', z.strictObject({ shop_id: positiveId }), webhookTarget),
  deliveriesList: subject('notifier.deliveries.list', listDeliveriesCommand, webhookDeliveryList),
  deliveriesResend: subject('notifier.deliveries.resend', linkIdCommand, webhookDelivery),
  shopsGet: subject('shops.get', z.strictObject({ shop_id: positiveId }), shopView),
  /**
   * The merchant's own shops (merchant identity; the merchant comes from the token). A shop of another merchant
   * is forbidden, an unknown one not_found, in that order.
   */
  shopsList: subject('shops.list', listShopsCommand, merchantShopPage),
  shopsRead: subject('shops.read', shopIdCommand, merchantShop),
  shopsCreate: subject('shops.create', createShopCommand, merchantShop),
  shopsUpdate: subject('shops.update', updateShopCommand, merchantShop),
  shopsRotateSecret: subject('shops.rotate_secret', rotateSecretCommand, rotatedSecret),
  shopsReissueCashierKey: subject('shops.reissue_cashier_key', reissueCashierKeyCommand, reissuedCashierKey),
  /** A `webhook.test` delivery to the shop's webhook address, through the durable delivery path (202). */
  deliveriesTest: subject('notifier.deliveries.test', shopIdCommand, webhookDelivery),
  /** Refunds (docs/money.md, "Refunds"): the links service owns them with the link and the ledger. */
  refundsCreate: subject('links.refunds.create', createRefundCommand, idempotentRefundReply),
  refundsGet: subject('links.refunds.get', refundIdCommand, refund),
  refundsList: subject('links.refunds.list', listRefundsCommand, refundPage),
  /** A provider's callback (service identity), the operator's `refund:settle` (service identity). */
  refundsSettle: subject('links.refunds.settle', settleRefundCommand, refund),
  /** The test-mode simulator, a merchant's own test refund only (a live one is not_found). */
  refundsSimulate: subject('links.refunds.simulate', z.strictObject({ id: uuid, status: z.enum(['succeeded', 'failed']) }), refund),
  /** Unresolved payments (docs/money.md, "Unresolved payments"): money that did not simply pay a pending link. */
  unresolvedList: subject('links.unresolved.list', listUnresolvedCommand, unresolvedPaymentPage),
  unresolvedGet: subject('links.unresolved.get', unresolvedIdCommand, unresolvedPayment),
  unresolvedResolve: subject('links.unresolved.resolve', resolveUnresolvedCommand, unresolvedPayment),
  /** The shop's balance and statement, in the caller's mode. */
  balanceGet: subject('links.balance.get', balanceCommand, balance),
  balanceTransactionsList: subject('links.balance_transactions.list', listBalanceTransactionsCommand, balanceTransactionPage),
  /** One page of a shop's daily report (docs/money.md, "Daily report"), oldest first, in the caller's mode. */
  reportsDaily: subject('links.reports.daily', dailyReportCommand, dailyReportPage),
  /** The dashboard Home page's last days at a glance (docs/reports.md), by Moscow day, in the caller's mode. */
  reportsSummary: subject('links.reports.summary', summaryCommand, summary),
  /** Every event of the caller's shops in its mode, newest first, kept 30 days. */
  eventsList: subject('notifier.events.list', listEventsCommand, webhookEventPage),
  eventsGet: subject('notifier.events.get', eventIdCommand, webhookEvent),
  /** The operator's `payment:sync` (service identity): a link's attempts and pending refunds read from their providers now. */
  linksSync: subject('links.sync', paymentSyncCommand, paymentSyncReport),
  shopsByCashierKey: subject('shops.by_cashier_key', z.strictObject({ cashier_key: z.string().min(1).max(256) }), shopView),
  /** A link's attempts at its providers (merchant identity, the link's own reach), for the dashboard. */
  linksAttemptsList: subject('links.attempts.list', linkIdCommand, paymentAttemptList),
  /** Payouts (docs/payouts.md): links owns them with the ledger; the gateway resolves the destination first. */
  payoutsCreate: subject('links.payouts.create', createPayoutCommand, idempotentPayoutReply),
  payoutsGet: subject('links.payouts.get', payoutIdCommand, payout),
  payoutsList: subject('links.payouts.list', listPayoutsCommand, payoutPage),
  /** Approve, reject or cancel (a member of the account; never the creator for approve). */
  payoutsDecide: subject('links.payouts.decide', payoutDecisionCommand, payout),
  /** The test-mode simulator: a test payout to paid or failed (approved ones through processing first). */
  payoutsSimulate: subject('links.payouts.simulate', simulatePayoutCommand, payout),
  /** A shop's payout schedule in the caller's mode (docs/payouts.md, "Automatic payouts"); answers the shop. */
  shopsSetPayoutSchedule: subject('shops.payout_schedule.set', setPayoutScheduleCommand, merchantShop),
  /** Every shop's daily and weekly schedules, for links' scheduler (service identity). */
  shopsPayoutSchedules: subject('shops.payout_schedules.list', listPayoutSchedulesCommand, payoutSchedulePage),
  /** The account's payout settings and a destination, for links' scheduler (service identity; the gateway answers). */
  gatewayPayoutContext: subject('gateway.payout_context', payoutContextCommand, payoutContext),
  /** The shop's next scheduled payout as it would be now (merchant identity; links knows the balance and the fee). */
  payoutsNext: subject('links.payouts.next', nextPayoutCommand, nextPayout),
  /** A verified Heleket payout webhook (service identity): paid, failed, or still processing at Heleket. */
  payoutsSettleHeleket: subject('links.payouts.settle_heleket', settleHeleketPayoutCommand, payout),
  /** The operator's `payment:sync --payout ID` (service identity): a processing Heleket payout read from Heleket now. */
  payoutsSync: subject('links.payouts.sync', payoutSyncCommand, payoutSyncReport),
} as const;
