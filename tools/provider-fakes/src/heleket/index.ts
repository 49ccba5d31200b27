export {
  HeleketFake,
  fakeSign,
  signedCallbackBody,
  type CallbackPolicy,
  type Delivery,
  type Fault,
  type HeleketFakeOptions,
  type RefundRecord,
} from './heleket-fake';
export { defaultServices, type HeleketStatus, type Invoice, type Service } from './invoices';
