import { call, client, present } from './client';
import type { CreatePayoutDestinationBody, Payout, PayoutDestination, PayoutDestinationList, PayoutPage, PayoutStatus } from '../types';

/** The session API's calls about payouts and their destinations (docs/payouts.md). Creating either and approving need step-up, which client.ts asks for. */

export interface PayoutFilters {
  shop_id: string;
  status: '' | PayoutStatus;
}

export const listPayouts = (filters: PayoutFilters, cursor: string | null, limit = 20): Promise<PayoutPage> =>
  call(client.GET('/api/v1/payouts', { params: { query: present({ ...filters, limit: String(limit), cursor }) } }));

export interface NewPayout {
  shop_id: number;
  /** A decimal string, so no floating point ever touches it. */
  amount: string;
  destination_id: string;
  description?: string;
}

/** One payout; `idempotencyKey` is the form's for these values, so a repeat after a lost answer makes no second payout. */
export const createPayout = (body: NewPayout, idempotencyKey: string): Promise<Payout> =>
  call(client.POST('/api/v1/payouts', { headers: { 'Idempotency-Key': idempotencyKey }, body }));

const byId = (id: string) => ({ path: { id } });

export const approvePayout = (id: string): Promise<Payout> => call(client.POST('/api/v1/payouts/{id}/approve', { params: byId(id), body: {} }));

export const rejectPayout = (id: string, reason: string): Promise<Payout> =>
  call(client.POST('/api/v1/payouts/{id}/reject', { params: byId(id), body: { reason } }));

export const cancelPayout = (id: string): Promise<Payout> => call(client.POST('/api/v1/payouts/{id}/cancel', { params: byId(id), body: {} }));

/** Test mode only: the sandbox rail pays or fails the payout (an approved one goes through processing first). */
export const simulatePayout = (id: string, status: 'paid' | 'failed'): Promise<Payout> =>
  call(client.POST('/api/v1/payouts/{id}/simulate', { params: byId(id), body: { status } }));

export const listPayoutDestinations = (): Promise<PayoutDestinationList> => call(client.GET('/api/v1/payout-destinations'));

export const createPayoutDestination = (body: CreatePayoutDestinationBody): Promise<PayoutDestination> =>
  call(client.POST('/api/v1/payout-destinations', { body }));

export const deletePayoutDestination = async (id: string): Promise<void> => {
  await call(client.DELETE('/api/v1/payout-destinations/{id}', { params: byId(id) }));
};
