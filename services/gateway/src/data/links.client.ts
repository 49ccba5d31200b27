import type { BusClient } from '@pl/bus';
import {
  subjects,
  type Balance,
  type BalanceTransactionPage,
  type BuyerLinkView,
  type CreateRefundCommand,
  type CreateLinkCommand,
  type DailyReportCommand,
  type DailyReportPage,
  type Identity,
  type IdempotencyClaim,
  type IdempotentLinkReply,
  type IdempotentRefundReply,
  type ListBalanceTransactionsCommand,
  type ListLinksCommand,
  type ListRefundsCommand,
  type MerchantIdentity,
  type PaymentLink,
  type Refund,
  type RefundPage,
  type SelectMethodCommand,
  type SettlePaymentCommand,
  type SettleRefundCommand,
  type SettleHeleketPayoutCommand,
  type ListUnresolvedCommand,
  type ResolveUnresolvedCommand,
  type UnresolvedPaymentPage,
  type UnresolvedPaymentView,
  type SimulatePaymentCommand,
  type CreatePayoutCommand,
  type IdempotentPayoutReply,
  type ListPayoutsCommand,
  type Payout,
  type PayoutDecisionCommand,
  type PayoutPage,
  type Summary,
  type SummaryCommand,
  type NextPayout,
  type NextPayoutCommand,
} from '@pl/contracts';

/** Buyers and providers have no merchant credentials; the gateway acts for them as itself. */
const GATEWAY_IDENTITY: Identity = { kind: 'service', service: 'gateway' };

/**
 * The links service as the gateway sees it: typed NATS requests made on behalf of a merchant. The merchant
 * routes answer with the link (or list) exactly as the links service serialized it, so those calls return
 * the reply's JSON bytes instead of decoding and parsing them only to serialize them again.
 */
export class LinksClient {
  constructor(private readonly bus: BusClient) {}

  /** A `PaymentLink`, as UTF-8 JSON. */
  create(identity: MerchantIdentity, command: CreateLinkCommand, requestId: string): Promise<Buffer> {
    return this.bus.requestJson(subjects.linksCreate, command, identity, { requestId });
  }

  /** A create with an Idempotency-Key: the links service keeps the key with the link, or answers the link it kept. */
  createOnce(identity: MerchantIdentity, command: CreateLinkCommand, idempotency: IdempotencyClaim, requestId: string): Promise<IdempotentLinkReply> {
    return this.bus.request(subjects.linksCreateOnce, { ...command, idempotency }, identity, { requestId });
  }

  /** A `PaymentLink`, as UTF-8 JSON. */
  get(identity: MerchantIdentity, id: string, requestId: string): Promise<Buffer> {
    return this.bus.requestJson(subjects.linksGet, { id }, identity, { requestId });
  }

  /** A `PaymentLinkPage` (the links once; the list route adds the `payments` alias), as UTF-8 JSON. */
  list(identity: MerchantIdentity, command: ListLinksCommand, requestId: string): Promise<Buffer> {
    return this.bus.requestJson(subjects.linksList, command, identity, { requestId });
  }

  /** A `PaymentAttemptList`: the link's attempts at its providers, as UTF-8 JSON. */
  attempts(identity: MerchantIdentity, id: string, requestId: string): Promise<Buffer> {
    return this.bus.requestJson(subjects.linksAttemptsList, { id }, identity, { requestId });
  }

  /** A `PaymentLink`, as UTF-8 JSON. */
  cancel(identity: MerchantIdentity, id: string, requestId: string): Promise<Buffer> {
    return this.bus.requestJson(subjects.linksCancel, { id }, identity, { requestId });
  }

  /** A cancel with an Idempotency-Key, answered as {@link createOnce} is. */
  cancelOnce(identity: MerchantIdentity, id: string, idempotency: IdempotencyClaim, requestId: string): Promise<IdempotentLinkReply> {
    return this.bus.request(subjects.linksCancelOnce, { id, idempotency }, identity, { requestId });
  }

  /** The buyer-safe view of a link, for the checkout page (the link id is the buyer's capability). */
  publicGet(id: string, requestId: string): Promise<BuyerLinkView> {
    return this.bus.request(subjects.linksPublicGet, { id }, GATEWAY_IDENTITY, { requestId });
  }

  /** The buyer's method choice on the checkout page (the link id is the buyer's capability). */
  select(command: SelectMethodCommand, requestId: string): Promise<BuyerLinkView> {
    return this.bus.request(subjects.linksSelect, command, GATEWAY_IDENTITY, { requestId });
  }

  /**
   * The test checkout's simulated verdict (the link id is the buyer's capability). Links refuses it for a live
   * link as if the link did not exist, so this never settles real money.
   */
  simulate(command: SimulatePaymentCommand, requestId: string): Promise<BuyerLinkView> {
    return this.bus.request(subjects.linksSimulate, command, GATEWAY_IDENTITY, { requestId });
  }

  /** A provider's verdict, sent only after the gateway verified the provider's signature. */
  settle(command: SettlePaymentCommand, requestId: string): Promise<PaymentLink> {
    return this.bus.request(subjects.linksSettle, command, GATEWAY_IDENTITY, { requestId });
  }

  /**
   * A refund of a paid link. With an Idempotency-Key the claim travels along and links keeps it with the refund,
   * so a retry answers the refund it made (`replayed`) instead of refunding twice.
   */
  createRefund(identity: MerchantIdentity, command: CreateRefundCommand, requestId: string): Promise<IdempotentRefundReply> {
    return this.bus.request(subjects.refundsCreate, command, identity, { requestId });
  }

  getRefund(identity: MerchantIdentity, id: string, requestId: string): Promise<Refund> {
    return this.bus.request(subjects.refundsGet, { id }, identity, { requestId });
  }

  listRefunds(identity: MerchantIdentity, command: ListRefundsCommand, requestId: string): Promise<RefundPage> {
    return this.bus.request(subjects.refundsList, command, identity, { requestId });
  }

  listUnresolved(identity: MerchantIdentity, command: ListUnresolvedCommand, requestId: string): Promise<UnresolvedPaymentPage> {
    return this.bus.request(subjects.unresolvedList, command, identity, { requestId });
  }

  getUnresolved(identity: MerchantIdentity, id: string, requestId: string): Promise<UnresolvedPaymentView> {
    return this.bus.request(subjects.unresolvedGet, { id }, identity, { requestId });
  }

  /** Settles or refunds an unresolved payment, once (links answers 409 to a second resolve). */
  resolveUnresolved(identity: MerchantIdentity, command: ResolveUnresolvedCommand, requestId: string): Promise<UnresolvedPaymentView> {
    return this.bus.request(subjects.unresolvedResolve, command, identity, { requestId });
  }

  /** The test-mode simulator's verdict on a refund; links answers not found for a live one. */
  simulateRefund(identity: MerchantIdentity, id: string, status: 'succeeded' | 'failed', requestId: string): Promise<Refund> {
    return this.bus.request(subjects.refundsSimulate, { id, status }, identity, { requestId });
  }

  /** A provider's verdict on a refund, sent only after the gateway verified the provider's signature. */
  settleRefund(command: SettleRefundCommand, requestId: string): Promise<Refund> {
    return this.bus.request(subjects.refundsSettle, command, GATEWAY_IDENTITY, { requestId });
  }

  /** The shop's next scheduled payout in the identity's mode, as it would be now (docs/payouts.md, "Automatic payouts"). */
  nextPayout(identity: MerchantIdentity, command: NextPayoutCommand, requestId: string): Promise<NextPayout> {
    return this.bus.request(subjects.payoutsNext, command, identity, { requestId });
  }

  /** A verified Heleket payout webhook, applied by links (the gateway's service identity). */
  settleHeleketPayout(command: SettleHeleketPayoutCommand, requestId: string): Promise<Payout> {
    return this.bus.request(subjects.payoutsSettleHeleket, command, GATEWAY_IDENTITY, { requestId });
  }

  /** The shop's balance in the identity's mode. */
  balance(identity: MerchantIdentity, shopId: number, requestId: string): Promise<Balance> {
    return this.bus.request(subjects.balanceGet, { shop_id: shopId }, identity, { requestId });
  }

  /** One page of the statement in the identity's mode. */
  balanceTransactions(identity: MerchantIdentity, command: ListBalanceTransactionsCommand, requestId: string): Promise<BalanceTransactionPage> {
    return this.bus.request(subjects.balanceTransactionsList, command, identity, { requestId });
  }

  /** One page of a shop's daily report in the identity's mode. */
  dailyReport(identity: MerchantIdentity, command: DailyReportCommand, requestId: string): Promise<DailyReportPage> {
    return this.bus.request(subjects.reportsDaily, command, identity, { requestId });
  }

  /** A payout of a shop's balance to a destination the gateway resolved; with an Idempotency-Key, once. */
  createPayout(identity: MerchantIdentity, command: CreatePayoutCommand, requestId: string): Promise<IdempotentPayoutReply> {
    return this.bus.request(subjects.payoutsCreate, command, identity, { requestId });
  }

  getPayout(identity: MerchantIdentity, id: string, requestId: string): Promise<Payout> {
    return this.bus.request(subjects.payoutsGet, { id }, identity, { requestId });
  }

  listPayouts(identity: MerchantIdentity, command: ListPayoutsCommand, requestId: string): Promise<PayoutPage> {
    return this.bus.request(subjects.payoutsList, command, identity, { requestId });
  }

  /** Approve, reject or cancel, as the member the command names. */
  decidePayout(identity: MerchantIdentity, command: PayoutDecisionCommand, requestId: string): Promise<Payout> {
    return this.bus.request(subjects.payoutsDecide, command, identity, { requestId });
  }

  /** The test-mode simulator's verdict on a payout; links answers not found for a live one. */
  simulatePayout(identity: MerchantIdentity, id: string, status: 'paid' | 'failed', requestId: string): Promise<Payout> {
    return this.bus.request(subjects.payoutsSimulate, { id, status }, identity, { requestId });
  }

  /** The dashboard Home page's last days at a glance (docs/reports.md), in the identity's mode. */
  summary(identity: MerchantIdentity, command: SummaryCommand, requestId: string): Promise<Summary> {
    return this.bus.request(subjects.reportsSummary, command, identity, { requestId });
  }
}
