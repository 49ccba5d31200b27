export { startGateway } from './app';
export { loadConfig, type GatewayConfig } from './config';
export { migrateGateway, GATEWAY_SCHEMA } from './data/migrate';
export { AccountRepository, type Merchant } from './data/account.repository';
