/** Why a 1C exchange file could not be written or read; the caller maps it to its own error (a 4xx, a CLI message). */
export type ExchangeFileErrorCode =
  /** A value with a line break or another control character: it would end its line and corrupt the file. */
  | 'unsafe_value'
  /** A value with a character windows-1251 cannot hold: the bank would read a '?' in its place. */
  | 'not_encodable'
  /** A value outside what a payment order allows (an amount that is not whole positive kopecks, a purpose too long...). */
  | 'invalid_value'
  /** The payer's or a payee's bank details do not pass their checks. */
  | 'invalid_bank_details'
  /** The first line is not `1CClientBankExchange`: not a file of this format. */
  | 'not_exchange_file'
  /** A section (`СекцияДокумент`, `СекцияРасчСчет`) or the file itself without its closing line. */
  | 'unterminated_section'
  /** A line that is neither `key=value` nor a marker the format knows, or a closing line with nothing open. */
  | 'malformed_line';

/**
 * A refused 1C exchange file or value. `line` (1-based) points into the file read; `field` names the value that
 * could not be written (`orders.2.purpose`, `payer.name`).
 */
export class ExchangeFileError extends Error {
  constructor(
    readonly code: ExchangeFileErrorCode,
    message: string,
    readonly where: { line?: number; field?: string } = {},
  ) {
    super(message);
    this.name = 'ExchangeFileError';
  }

  get line(): number | undefined {
    return this.where.line;
  }

  get field(): string | undefined {
    return this.where.field;
  }
}
