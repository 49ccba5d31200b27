/**
 * Reads a 1C exchange file (`1CClientBankExchange`): the header, every `СекцияДокумент` and every `СекцияРасчСчет`
 * (a statement's balances of one account), as plain key-value records. Tolerant where banks differ (CRLF or LF,
 * blank lines, spaces around `=`, `Кодировка=DOS`); strict where a file is cut short, since a statement that lost its
 * tail would silently lose operations.
 */
import { ExchangeFileError } from './exchange-file-error';
import { decodeDos866, decodeWindows1251 } from './windows-1251';

/** One `СекцияДокумент=<kind>` ... `КонецДокумента` block; `line` is where it opens (1-based). */
export interface ExchangeDocument {
  kind: string;
  fields: Record<string, string>;
  line: number;
}

/** One `СекцияРасчСчет` ... `КонецРасчСчет` block: an account's period and balances in a statement. */
export interface ExchangeAccountSection {
  fields: Record<string, string>;
  line: number;
}

export interface ParsedExchangeFile {
  header: Record<string, string>;
  documents: ExchangeDocument[];
  /** The statement's `СекцияРасчСчет` blocks; empty in a file of payment orders. */
  accounts: ExchangeAccountSection[];
}

const FIRST_LINE = '1CClientBankExchange';

/** The file's text: windows-1251, unless its header says `Кодировка=DOS` (code page 866), as the format allows. */
function decode(bytes: Buffer): string {
  const dos = decodeDos866(bytes);
  return /^\s*Кодировка\s*=\s*DOS\s*$/im.test(dos) ? dos : decodeWindows1251(bytes);
}

interface OpenSection {
  type: 'document' | 'account';
  kind: string;
  fields: Map<string, string>;
  line: number;
}

const CLOSING: Record<OpenSection['type'], string> = { document: 'КонецДокумента', account: 'КонецРасчСчет' };
const OPENING: Record<OpenSection['type'], string> = { document: 'СекцияДокумент', account: 'СекцияРасчСчет' };

function unterminated(open: OpenSection, beforeLine: number): ExchangeFileError {
  return new ExchangeFileError(
    'unterminated_section',
    `${OPENING[open.type]} opened on line ${open.line} has no ${CLOSING[open.type]} before line ${beforeLine}`,
    { line: open.line },
  );
}

/** Records from ordered pairs; the first of a repeated key is kept. Object.fromEntries defines `__proto__` as a plain key. */
const recordOf = (fields: Map<string, string>): Record<string, string> => Object.fromEntries(fields);

/**
 * The file's header, documents and account sections. Throws ExchangeFileError with the line number for a file whose
 * first line is not `1CClientBankExchange`, a section not closed before the next one or the end, a file without
 * `КонецФайла`, or a line that is neither `key=value` nor a marker of the format.
 */
export function parseExchangeFile(bytes: Buffer): ParsedExchangeFile {
  const lines = decode(bytes).split(/\r\n|\r|\n/);
  if (lines[0]?.trim() !== FIRST_LINE) {
    throw new ExchangeFileError('not_exchange_file', `The first line is not ${FIRST_LINE}: this is not a 1C exchange file`, { line: 1 });
  }
  const header = new Map<string, string>();
  const documents: ExchangeDocument[] = [];
  const accounts: ExchangeAccountSection[] = [];
  let open: OpenSection | null = null;

  for (let i = 1; i < lines.length; i++) {
    const text = (lines[i] ?? '').trim();
    const lineNo = i + 1;
    if (text === '') continue;
    const eq = text.indexOf('=');
    const key = eq < 0 ? text : text.slice(0, eq).trim();
    const value = eq < 0 ? '' : text.slice(eq + 1).trim();

    if (key === 'КонецФайла' && eq < 0) {
      if (open) throw unterminated(open, lineNo);
      // What follows the end of the file (a signature some clients append, blank lines) is not the file's.
      return { header: recordOf(header), documents, accounts };
    }
    if (key === OPENING.document || (key === OPENING.account && eq < 0)) {
      if (open) throw unterminated(open, lineNo);
      open = { type: key === OPENING.document ? 'document' : 'account', kind: value, fields: new Map(), line: lineNo };
      continue;
    }
    if ((key === CLOSING.document || key === CLOSING.account) && eq < 0) {
      if (open === null || CLOSING[open.type] !== key) {
        throw new ExchangeFileError('malformed_line', `Line ${lineNo} closes a section that is not open`, { line: lineNo });
      }
      if (open.type === 'document') documents.push({ kind: open.kind, fields: recordOf(open.fields), line: open.line });
      else accounts.push({ fields: recordOf(open.fields), line: open.line });
      open = null;
      continue;
    }
    if (eq < 0) throw new ExchangeFileError('malformed_line', `Line ${lineNo} is not key=value`, { line: lineNo });
    const target = open ? open.fields : header;
    if (!target.has(key)) target.set(key, value);
  }
  if (open) throw unterminated(open, lines.length + 1);
  throw new ExchangeFileError('unterminated_section', 'The file ends without КонецФайла: it may have been cut short', { line: lines.length });
}
