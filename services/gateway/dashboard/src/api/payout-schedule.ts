import { call, client } from './client';
import type { MerchantShop, NextPayout, PayoutInterval } from '../types';

/** The session API's calls about a shop's automatic payouts (docs/payouts.md, "Automatic payouts"), in the dashboard's mode. */

const path = (shopId: number) => ({ path: { id: String(shopId) } });

export interface PayoutScheduleInput {
  interval: PayoutInterval;
  destination_id: string | null;
  minimum: string | null;
}

export const setPayoutSchedule = (shopId: number, body: PayoutScheduleInput): Promise<MerchantShop> =>
  call(client.PUT('/api/v1/shops/{id}/payout-schedule', { params: path(shopId), body }));

export const getNextPayout = (shopId: number): Promise<NextPayout> => call(client.GET('/api/v1/shops/{id}/next-payout', { params: path(shopId) }));
