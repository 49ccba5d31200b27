import { call, client, present } from './client';
import type { UnresolvedPaymentPage, UnresolvedPaymentView } from '../types';

/**
 * The session API's calls about unresolved payments (docs/money.md, "Unresolved payments"): money that arrived but did
 * not simply pay a pending link, listed and resolved once by settling it to the shop or refunding it to the payer.
 */
export interface UnresolvedFilters {
  shop_id: string;
  status: '' | UnresolvedPaymentView['status'];
  reason: '' | UnresolvedPaymentView['reason'];
}

export const listUnresolved = (filters: UnresolvedFilters, cursor: string | null): Promise<UnresolvedPaymentPage> =>
  call(client.GET('/api/v1/unresolved-payments', { params: { query: present({ ...filters, limit: '20', cursor }) } }));

export const settleUnresolved = (id: string, idempotencyKey: string): Promise<UnresolvedPaymentView> =>
  call(
    client.POST('/api/v1/unresolved-payments/{id}/settle', { params: { path: { id } }, headers: { 'Idempotency-Key': idempotencyKey }, body: {} }),
  );

/** `destination` is the buyer's address, for a payment that arrived in a coin; null for any other. */
export const refundUnresolved = (id: string, destination: string | null, idempotencyKey: string): Promise<UnresolvedPaymentView> =>
  call(
    client.POST('/api/v1/unresolved-payments/{id}/refund', {
      params: { path: { id } },
      headers: { 'Idempotency-Key': idempotencyKey },
      body: destination === null ? {} : { destination },
    }),
  );
