import type { ComponentChildren } from 'preact';
import { useI18n } from '../i18n';
import { ErrorMessage, Loading } from './common';
import type { Loaded, Paging } from './use-load';

interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** Figures (amounts, counts): right-aligned, never wrapped. */
  num?: boolean;
}

interface TableProps<T> {
  /** The table's name for screen readers (its region's label). */
  label: string;
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string | number;
  /** A row's kind, as its `data-type` (what a test or a style picks rows by). */
  rowType?: (row: T) => string;
  testId?: string;
}

/**
 * Rows as a table on a wide screen and as stacked cards on a phone (styles.css, `.data-table`): each cell then shows its
 * column's header beside its value, the first cell heads the card, and nothing scrolls sideways. The ARIA roles keep it
 * a table for screen readers when the phone layout turns its parts into blocks.
 */
export function Table<T>({ label, columns, rows, rowKey, rowType, testId }: TableProps<T>) {
  return (
    <div class="table-region" role="region" aria-label={label} tabIndex={0}>
      <table class="data-table" role="table" data-testid={testId}>
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((c) => (
              <th key={c.header} scope="col" role="columnheader" class={c.num ? 'num' : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {rows.map((row) => (
            <tr key={rowKey(row)} role="row" data-type={rowType?.(row)}>
              {columns.map((c) => (
                <td key={c.header} role="cell" data-label={c.header} class={c.num ? 'num' : undefined}>
                  <span class="cell">{c.cell(row)}</span>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface ListProps<D, T> {
  load: Loaded<D>;
  items: (data: D) => readonly T[];
  /** What the list says when it has nothing (under its filters). */
  empty: string;
  /** Cursor paging, for a list whose answer is a CursorPage. */
  paging?: Paging;
  children: (items: readonly T[]) => ComponentChildren;
}

/**
 * A list's every state: loading, its error with a retry, its empty text, its items (drawn by `children`) and the pager.
 * Every list of the dashboard goes through here, so they all behave alike.
 */
export function ListStates<D, T>({ load, items, empty, paging, children }: ListProps<D, T>) {
  const { t } = useI18n();
  if (load.loading) return <Loading />;
  if (load.error !== null || load.data === undefined) return <ErrorMessage error={load.error} onRetry={load.reload} />;
  const list = items(load.data);
  return (
    <>
      {list.length === 0 ? <p class="empty">{empty}</p> : children(list)}
      {paging && (paging.cursor !== null || paging.next !== null) && (
        <div class="pager">
          {paging.cursor !== null && (
            <button type="button" onClick={() => paging.onCursor(null)}>
              {t.firstPage}
            </button>
          )}
          {paging.next !== null && (
            <button type="button" onClick={() => paging.onCursor(paging.next)}>
              {t.nextPage}
            </button>
          )}
        </div>
      )}
    </>
  );
}

/** A list as a data table ({@link Table}) with its states ({@link ListStates}). */
export function DataTable<D, T>({
  label,
  columns,
  rowKey,
  rowType,
  testId,
  ...list
}: Omit<ListProps<D, T>, 'children'> & Omit<TableProps<T>, 'rows'>) {
  return (
    <ListStates {...list}>
      {(rows) => <Table label={label} columns={columns} rows={rows} rowKey={rowKey} rowType={rowType} testId={testId} />}
    </ListStates>
  );
}
