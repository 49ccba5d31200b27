import {
  listBalanceTransactionsQuery,
  listBalanceTransactionsSessionQuery,
  PAGE_LIMIT_MAX,
  type ListBalanceTransactionsCommand,
} from '@pl/contracts';

const DEFAULT_LIST_LIMIT = 20;

interface ListQuery {
  shop_id?: number | undefined;
  type?: ListBalanceTransactionsCommand['type'] | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

const toCommand = (q: ListQuery): ListBalanceTransactionsCommand => ({
  shop_id: q.shop_id ?? null,
  type: q.type ?? null,
  limit: q.limit ?? DEFAULT_LIST_LIMIT,
  cursor: q.cursor ?? null,
});

/** The merchant API's statement query, parsed into the links service's command with its defaults. */
export const listBalanceTransactionsInput = listBalanceTransactionsQuery.transform(toCommand);

/** The dashboard's statement query: the same, and whether the merchant asked for the CSV download. */
export const listBalanceTransactionsSessionInput = listBalanceTransactionsSessionQuery.transform((q) =>
  q.format === 'csv'
    ? // The download reads every page from the cursor on, in the largest pages whatever `limit` says: a client's
      // limit=1 would make one export cost a bus call and a query per row while counting as one request.
      { format: 'csv' as const, command: toCommand({ ...q, limit: PAGE_LIMIT_MAX }) }
    : { format: 'json' as const, command: toCommand(q) },
);

/** The download's file name: the shop (or `all`) and the mode, so a live and a test statement never overwrite each other. */
export const statementFileName = (shopId: number | null, mode: string): string => `statement-${shopId ?? 'all'}-${mode}.csv`;
