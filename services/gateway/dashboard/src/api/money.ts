import { call, client, present } from './client';
import type { Balance, BalanceTransactionPage, EventType, Refund, RefundPage, WebhookEventPage } from '../types';

/**
 * The session API's calls about money after a payment (docs/money.md). They go through `client`, so the mode
 * header and the sign-out on 401 apply; typed from docs/openapi.json (@pl/client), and held as the contracts' shapes.
 */
export const getBalance = (shopId: number): Promise<Balance> =>
  call(client.GET('/api/v1/shops/{id}/balance', { params: { path: { id: String(shopId) } } }));

export interface BalanceFilters {
  shop_id: string;
  type: '' | 'payment' | 'late_payment' | 'unresolved_payment' | 'refund' | 'refund_failed' | 'payout' | 'payout_returned';
}

export const listBalanceTransactions = (filters: BalanceFilters, cursor: string | null): Promise<BalanceTransactionPage> =>
  call(client.GET('/api/v1/balance-transactions', { params: { query: present({ ...filters, limit: '20', cursor }) } }));

/** The file name the server gives (Content-Disposition), when it gives a plain one. */
export const fileNameOf = (response: Response): string | null =>
  /filename="([^"/\\]+)"/.exec(response.headers.get('Content-Disposition') ?? '')?.[1] ?? null;

/**
 * The statement as CSV (the same rows as the list, every page of them): fetched by the app rather than followed as a
 * plain link, so that it carries the mode header and a test statement is never the live one.
 */
export async function downloadStatement(filters: BalanceFilters): Promise<{ blob: Blob; filename: string }> {
  let filename = 'statement.csv';
  const blob = await call(
    client
      .GET('/api/v1/balance-transactions', {
        params: { query: { ...present(filters), format: 'csv' } },
        headers: { Accept: 'text/csv' },
        parseAs: 'blob',
      })
      .then((answer) => {
        filename = fileNameOf(answer.response) ?? filename;
        return answer;
      }),
  );
  return { blob, filename };
}

export const listRefunds = (linkId: string): Promise<RefundPage> =>
  call(client.GET('/api/v1/refunds', { params: { query: { payment_link_id: linkId, limit: '100' } } }));

export interface RefundInput {
  amount: string;
  reason: string | null;
  destination: string | null;
}

export const createRefund = (linkId: string, body: RefundInput, idempotencyKey: string): Promise<Refund> =>
  call(
    client.POST('/api/v1/payment-links/{id}/refunds', {
      params: { path: { id: linkId } },
      headers: { 'Idempotency-Key': idempotencyKey },
      body: { amount: body.amount, ...(body.reason ? { reason: body.reason } : {}), ...(body.destination ? { destination: body.destination } : {}) },
    }),
  );

export const simulateRefund = (id: string, status: 'succeeded' | 'failed'): Promise<Refund> =>
  call(client.POST('/api/v1/refunds/{id}/simulate', { params: { path: { id } }, body: { status } }));

export const listEvents = (type: '' | EventType, cursor: string | null): Promise<WebhookEventPage> =>
  call(client.GET('/api/v1/events', { params: { query: present({ type, limit: '20', cursor }) } }));
