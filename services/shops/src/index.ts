// The service's public entry (`@pl/shops`): what the operators' CLI and the benchmarks may use. It leaves out
// the app's wiring (startShops), so importing it starts nothing and loads no server, broker client or HTTP stack.
export { loadConfig, shopStorageEnv, DEV_WEBHOOK_SECRET_KEY, type ShopsConfig } from './config';
export { migrateShops, SHOPS_SCHEMA } from './data/migrate';
export { ShopRepository } from './data/shop.repository';
export { SecretBox } from './domain/secret-box';
export * from './domain/shop';
export { createShop, type ShopUseCaseDeps } from './domain/create-shop';
export { updateShop } from './domain/update-shop';
export { toMerchantShop, toMerchantShopPage } from './domain/merchant-shop-view';
export { toStandardWebhooksSecret } from './domain/webhook-secret';
export { fitShopPage } from './domain/list-shops';
export { CASHIER_KEY_PREFIX } from './domain/cashier-key';
