// The service's public entry (`@pl/gateway`): what the operators' CLI and the benchmarks may use. It leaves out
// the app's wiring (startGateway), so importing it starts nothing and loads no server, broker client or HTTP stack.
export { loadConfig, type GatewayConfig } from './config';
export { migrateGateway, GATEWAY_SCHEMA } from './data/migrate';
export { AccountRepository, type Merchant } from './data/account.repository';
export { DEFAULT_SCRYPT, LEGACY_SCRYPT, PasswordHasher, type ScryptParams } from './domain/password-hash';
// The operators' payout:hold and payout:release.
export { setPayoutHold } from './data/payout-destination.repository';
