import { z } from 'zod';
import { PAGE_LIMIT_MAX, type CursorCodec } from '@pl/contracts';
import { isAppError } from '@pl/errors';
import { flagsInvalid } from './flags';

/** How many rows a list prints when `--limit` is not given. */
const DEFAULT_PAGE_LIMIT = 50;

/** The paging flags every list takes: `--limit N` (1..100) and `--cursor C` (a list's `next_cursor`). */
export const pageOptions = { limit: { type: 'string' }, cursor: { type: 'string' } } as const;

export const pageFlags = {
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, { message: `must be a whole number from 1 to ${String(PAGE_LIMIT_MAX)}` })
    .transform(Number)
    .pipe(z.number().max(PAGE_LIMIT_MAX, { message: `must be a whole number from 1 to ${String(PAGE_LIMIT_MAX)}` }))
    .default(DEFAULT_PAGE_LIMIT),
  cursor: z.string().optional(),
};

export const PAGE_HELP = `  --limit N     rows per page, 1 to ${String(PAGE_LIMIT_MAX)} (default ${String(DEFAULT_PAGE_LIMIT)})
  --cursor C    the next page: the previous page's "next_cursor"`;

/** The position `--cursor` names, or null for the first page; a cursor the list did not write is a validation error. */
export function positionOf<P>(codec: CursorCodec<P>, cursor: string | undefined): P | null {
  if (cursor === undefined) return null;
  try {
    return codec.decode(cursor);
  } catch (e) {
    if (isAppError(e) && e.kind === 'validation') throw flagsInvalid([{ field: 'cursor', code: 'invalid_value', message: 'is malformed' }]);
    throw e;
  }
}

/**
 * One page of a list from `limit + 1` rows (the extra one tells whether more follow), under `key`, with the
 * cursor of the next page written from the last row shown.
 */
export function pageOf<R, K extends string>(
  key: K,
  rows: readonly R[],
  limit: number,
  view: (row: R) => object,
  cursor: (last: R) => string,
): Record<K, object[]> & { has_more: boolean; next_cursor: string | null } {
  const shown = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = shown[shown.length - 1];
  return { [key]: shown.map(view), has_more: hasMore, next_cursor: hasMore && last !== undefined ? cursor(last) : null } as Record<K, object[]> & {
    has_more: boolean;
    next_cursor: string | null;
  };
}
