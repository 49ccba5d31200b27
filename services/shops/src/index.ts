export { startShops } from './app';
export { loadConfig, shopStorageEnv, DEV_WEBHOOK_SECRET_KEY, type ShopsConfig } from './config';
export { migrateShops, SHOPS_SCHEMA } from './data/migrate';
export { ShopRepository } from './data/shop.repository';
export { SecretBox } from './domain/secret-box';
export * from './domain/shop';
export { createShop, type ShopUseCaseDeps } from './domain/create-shop';
export { updateShop } from './domain/update-shop';
export { CASHIER_KEY_PREFIX } from './domain/cashier-key';
