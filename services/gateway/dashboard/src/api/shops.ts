import { call, client, present } from './client';
import type { CryptoNetwork, EventType, MerchantShop, MerchantShopPage, Mode, RotatedSecret, WebhookDelivery } from '../types';

/** The session API's calls about shops: their settings, secrets, keys and test webhook. */

/** One page of shops, 20 at a time. */
export const listShops = (cursor: string | null): Promise<MerchantShopPage> =>
  call(client.GET('/api/v1/shops', { params: { query: present({ limit: '20', cursor }) } }));

/** Every shop of the merchant at once, for pickers and names (one page of 100 is every shop a merchant is expected to have). */
export const listAllShops = (): Promise<MerchantShopPage> => call(client.GET('/api/v1/shops', { params: { query: { limit: '100' } } }));

export const getShop = (id: string): Promise<MerchantShop> => call(client.GET('/api/v1/shops/{id}', { params: { path: { id } } }));

export interface ShopSettings {
  name: string;
  webhook_url: string | null;
  fee_payer: MerchantShop['fee_payer'];
}

export const createShop = (body: ShopSettings): Promise<MerchantShop> => call(client.POST('/api/v1/shops', { body }));

const path = (shopId: number) => ({ path: { id: String(shopId) } });

export const updateShop = (shopId: number, body: ShopSettings): Promise<MerchantShop> =>
  call(client.PATCH('/api/v1/shops/{id}', { params: path(shopId), body }));

export const saveWebhookEvents = (shopId: number, events: EventType[]): Promise<MerchantShop> =>
  call(client.PATCH('/api/v1/shops/{id}', { params: path(shopId), body: { webhook_events: events } }));

export const savePaymentMethods = (shopId: number, methods: { sbp: boolean; crypto_networks: CryptoNetwork[] }): Promise<MerchantShop> =>
  call(client.PATCH('/api/v1/shops/{id}', { params: path(shopId), body: { payment_methods: methods } }));

export const rotateWebhookSecret = (shopId: number, overlapMinutes: number): Promise<RotatedSecret> =>
  call(client.POST('/api/v1/shops/{id}/webhook-secret/rotate', { params: path(shopId), body: { overlap_minutes: overlapMinutes } }));

export const sendTestWebhook = (shopId: number): Promise<WebhookDelivery> =>
  call(client.POST('/api/v1/shops/{id}/webhook-test', { params: path(shopId), body: {} }));

export const reissueCashierKey = (shopId: number, mode: Mode): Promise<{ cashier_key: string; mode: Mode }> =>
  call(client.POST('/api/v1/shops/{id}/cashier-key/reissue', { params: path(shopId), body: { mode } }));
