import { useCallback, useEffect, useState } from 'preact/hooks';
import type { CursorPage } from '../api/client';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  setData: (data: T) => void;
}

/** Runs `load` when `key` changes (and on reload); the last answer wins, an earlier one arriving late is dropped. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    setError(null);
    load().then(
      (d) => {
        if (!current) return;
        setData(d);
        setLoading(false);
      },
      (e: unknown) => {
        if (!current) return;
        setError(e);
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
    // `load` is a new closure every render; `key` names what it loads.
  }, [key, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data, error, loading, reload, setData };
}

/** Where a cursor-paged list is: its cursor (null on the first page), the next page's (null on the last), the way there. */
export interface Paging {
  cursor: string | null;
  next: string | null;
  onCursor: (cursor: string | null) => void;
}

/**
 * One page of a cursor-paged list, loaded as `useLoad` does. `key` names the list (its filters): a new key starts again
 * on the first page, so a filter applied on page three shows its own first page.
 */
export function usePagedLoad<T extends CursorPage>(load: (cursor: string | null) => Promise<T>, key: string): Loaded<T> & { paging: Paging } {
  const [at, setAt] = useState<{ key: string; cursor: string | null }>({ key, cursor: null });
  const cursor = at.key === key ? at.cursor : null;
  const loaded = useLoad(() => load(cursor), JSON.stringify([key, cursor]));
  const next = loaded.data?.has_more ? loaded.data.next_cursor : null;
  return { ...loaded, paging: { cursor, next, onCursor: (to) => setAt({ key, cursor: to }) } };
}

export interface Action<A extends unknown[]> {
  busy: boolean;
  error: unknown;
  done: boolean;
  run: (...args: A) => void;
}

/**
 * A button's action (resend, simulate, download...): busy while it runs, its error kept for the page to show, `done`
 * once it succeeded until it runs again.
 */
export function useAction<A extends unknown[]>(act: (...args: A) => Promise<void>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const run = (...args: A) => {
    setBusy(true);
    setError(null);
    setDone(false);
    act(...args).then(
      () => {
        setDone(true);
        setBusy(false);
      },
      (e: unknown) => {
        setError(e);
        setBusy(false);
      },
    );
  };
  return { busy, error, done, run };
}
