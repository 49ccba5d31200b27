import { call, client, present } from './client';
import type { Summary } from '../types';

/** The Home page's last days at a glance (docs/reports.md): one shop's, or every shop's when `shopId` is ''. */
export const getSummary = (shopId: string, days = 30): Promise<Summary> =>
  call(client.GET('/api/v1/reports/summary', { params: { query: present({ shop_id: shopId, days: String(days) }) } }));
