/**
 * A cell a spreadsheet would run as a formula (CSV injection): text starting with `=`, `+`, `-` or `@`, or with a
 * tab or carriage return that some spreadsheets skip before looking for one. A plain decimal number (`-500.00`) is
 * not one: a spreadsheet reads it as the number it is, and a guard would turn a refund's amount into text.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * The cell as a spreadsheet should show it: a formula-looking text gets a leading apostrophe, which Excel,
 * LibreOffice and Google Sheets take as "this is text" (OWASP's advice for CSV injection). Quoting for RFC 4180
 * is the CSV writer's job, after this.
 */
export const spreadsheetSafe = (cell: string | null): string | null =>
  cell === null || PLAIN_NUMBER.test(cell) || !FORMULA_START.test(cell) ? cell : `'${cell}`;
