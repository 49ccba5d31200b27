import { call, client, present } from './client';
import type { PaymentAttemptList, PaymentLink, PaymentLinkPage, WebhookDelivery, WebhookDeliveryList } from '../types';

/** The session API's calls about payment links and their webhook deliveries. */

export interface LinkFilters {
  status: '' | PaymentLink['status'];
  shop_id: string;
  order_id: string;
}

export const listLinks = (filters: LinkFilters, cursor: string | null): Promise<PaymentLinkPage> =>
  call(client.GET('/api/v1/payment-links', { params: { query: present({ ...filters, limit: '20', cursor }) } }));

export const getLink = (id: string): Promise<PaymentLink> => call(client.GET('/api/v1/payment-links/{id}', { params: { path: { id } } }));

export interface NewLink {
  shop_id: number;
  /** A decimal string, so no floating point ever touches it. */
  amount: string;
  order_id?: string;
  description?: string;
  expires_in_minutes?: number;
}

export const createLink = (body: NewLink): Promise<PaymentLink> => call(client.POST('/api/v1/payment-links', { body }));

export const cancelLink = (id: string): Promise<PaymentLink> =>
  call(client.POST('/api/v1/payment-links/{id}/cancel', { params: { path: { id } }, body: {} }));

/** The link's attempts at its payment providers, oldest first. */
export const listLinkAttempts = (id: string): Promise<PaymentAttemptList> =>
  call(client.GET('/api/v1/payment-links/{id}/attempts', { params: { path: { id } } }));

/** Every delivery of one link's webhooks (a link has a handful: one per event, each with its attempts). */
export const listLinkDeliveries = (linkId: string): Promise<WebhookDeliveryList> =>
  call(client.GET('/api/v1/webhook-deliveries', { params: { query: { payment_link_id: linkId, limit: '100' } } }));

export const resendDelivery = (id: string): Promise<WebhookDelivery> =>
  call(client.POST('/api/v1/webhook-deliveries/{id}/resend', { params: { path: { id } }, body: {} }));
