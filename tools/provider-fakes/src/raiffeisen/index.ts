export { RaiffeisenSbpFake, type PayOptions, type RaiffeisenRequestKind, type RaiffeisenSbpFakeOptions } from './raiffeisen-sbp-fake';
export { SIGNATURE_HEADER as RAIFFEISEN_FAKE_SIGNATURE_HEADER, type CallbackMode, type Delivery, type DeliveryOptions } from './notifications';
