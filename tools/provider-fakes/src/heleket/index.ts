export { fakeSign, type RefundRecord } from './api';
export { HeleketFake, signedCallbackBody, type CallbackPolicy, type Delivery, type Fault, type HeleketFakeOptions } from './heleket-fake';
export { defaultServices, type HeleketStatus, type Invoice, type Service } from './invoices';
export { PAYOUT_STATUS_WORDS, type Payout, type PayoutStatusWord } from './payouts';
