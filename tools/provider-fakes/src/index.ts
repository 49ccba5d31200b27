/** Local fakes of the payment providers' APIs (payment-providers.md, "Local fakes"), one folder each. */
export { RequestLedger, type Fault, type RecordedRequest } from './fake-http';
export * from './raiffeisen';
