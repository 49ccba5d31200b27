/** A plain-text table: the first row is the header; numbers right-aligned. */
export function table(rows: readonly (readonly (string | number)[])[]): string {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = cells[0]?.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length))) ?? [];
  const numeric = (s: string): boolean => /^-?[\d.,]+( ms| MiB|%)?$/.test(s) || s === '-';
  return cells
    .map((r, ri) =>
      r
        .map((c, i) => {
          const w = widths[i] ?? 0;
          const last = i === r.length - 1;
          if (last) return c;
          if (ri > 0 && numeric(c)) return c.padStart(w);
          return c.padEnd(w);
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export const fmtMs = (n: number): string => (Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(1)) : '-');
export const fmtMiB = (n: number | undefined): string => (n !== undefined && Number.isFinite(n) ? n.toFixed(1) : '-');
export const fmtS = (ms: number | undefined): string => (ms !== undefined && Number.isFinite(ms) ? (ms / 1000).toFixed(1) : '-');
