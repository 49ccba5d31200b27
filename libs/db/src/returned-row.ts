/**
 * The row an `INSERT ... RETURNING` (or another statement that always yields one row) returned. Postgres
 * guarantees it; a missing row means the statement is not the one the caller thinks, so it throws.
 */
export function returnedRow<R>(rows: readonly R[]): R {
  const row = rows[0];
  if (row === undefined) throw new Error('the statement returned no row');
  return row;
}
