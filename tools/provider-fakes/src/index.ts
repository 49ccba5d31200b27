/** Local fakes of the payment providers' APIs (docs/product-decisions.md, "Local fakes"), one folder each. */
export { RequestLedger, type Fault, type RecordedRequest } from './fake-http';
export * from './raiffeisen';
export {
  HeleketFake,
  defaultServices,
  fakeSign,
  signedCallbackBody,
  type CallbackPolicy,
  type Delivery as HeleketDelivery,
  type Fault as HeleketFault,
  type HeleketFakeOptions,
  type HeleketStatus,
  type Invoice,
  PAYOUT_STATUS_WORDS,
  type Payout,
  type PayoutStatusWord,
  type RefundRecord,
  type Service,
} from './heleket';
export { startLocalProviderFakes, type LocalProviderFakes } from './local-fakes';
