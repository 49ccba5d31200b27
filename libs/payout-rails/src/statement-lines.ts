/**
 * The operations of a bank statement (a 1C exchange file from the bank) on the platform's account, with the payout
 * ids each one names: what the statement import matches against payouts. docs/adr/0037-payout-rails-1c-exchange.md.
 */
import { ExchangeFileError } from './exchange-file-error';
import { isoDateOf } from './moscow-time';
import type { ExchangeDocument, ParsedExchangeFile } from './one-c-parse';

/** The other side of an operation as the bank wrote it; '' for what the bank left out. */
export interface StatementCounterparty {
  name: string;
  inn: string;
  account: string;
  bik: string;
}

export interface StatementLine {
  /** `debit`: money left the platform's account (an executed order); `credit`: money came in (a return, or anything else). */
  direction: 'debit' | 'credit';
  amountKopecks: number;
  /** `YYYY-MM-DD`: the day the bank debited (`ДатаСписано`) or credited (`ДатаПоступило`) the account, else the document's date. */
  date: string;
  /** The document's number (`Номер`): for a debit, the number of our payment order. */
  number: string;
  /** The full purpose: for a return, the bank's reason is here. */
  purpose: string;
  counterparty: StatementCounterparty;
  /** The payout ids the purpose names, lower-case with hyphens, each once; more than one is the importer's to refuse. */
  payoutIds: string[];
}

/** A UUID with or without its hyphens, not inside a longer run of hex digits. */
const UUID_IN_TEXT = /(?<![0-9a-f])[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}(?![0-9a-f])/gi;

/** The payout ids (UUIDs, hyphenated or not, any case) a purpose names, in the canonical form, each once. */
export function payoutIdsIn(text: string): string[] {
  const ids = [...text.matchAll(UUID_IN_TEXT)].map((m) => {
    const hex = m[0].replace(/-/g, '').toLowerCase();
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  });
  return [...new Set(ids)];
}

const AMOUNT = /^(\d+)(?:[.,](\d{1,2}))?$/;

function kopecksOf(doc: ExchangeDocument): number {
  const m = AMOUNT.exec(doc.fields['Сумма'] ?? '');
  const kopecks = m ? BigInt(m[1] ?? '0') * 100n + BigInt((m[2] ?? '').padEnd(2, '0')) : -1n;
  if (kopecks < 0n || kopecks > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ExchangeFileError('invalid_value', `The document on line ${doc.line} has no readable amount (Сумма)`, { line: doc.line });
  }
  return Number(kopecks);
}

function dateOf(doc: ExchangeDocument, movedOn: string | undefined): string {
  const text = movedOn || doc.fields['Дата'] || '';
  const iso = isoDateOf(text);
  if (iso === null) throw new ExchangeFileError('invalid_value', `The document on line ${doc.line} has no readable date`, { line: doc.line });
  return iso;
}

/**
 * The purpose as one text: `НазначениеПлатежа`, or its printed lines (`НазначениеПлатежа1`..) joined by a space
 * when a bank writes only those.
 */
function purposeOf(fields: Record<string, string>): { text: string; lines: string[] } {
  const lines: string[] = [];
  for (let n = 1; fields[`НазначениеПлатежа${n}`] !== undefined; n++) lines.push(fields[`НазначениеПлатежа${n}`] ?? '');
  return { text: fields['НазначениеПлатежа'] || lines.join(' '), lines };
}

/** A party of a document; `Плательщик` may read `ИНН 7707083893 ООО ...` when the bank writes no `Плательщик1`. */
function partyOf(fields: Record<string, string>, role: 'Плательщик' | 'Получатель'): StatementCounterparty {
  return {
    name: fields[`${role}1`] || (fields[role] ?? '').replace(/^ИНН\s*\d+\s*/, ''),
    inn: fields[`${role}ИНН`] ?? '',
    account: fields[`${role}Счет`] || fields[`${role}РасчСчет`] || '',
    bik: fields[`${role}БИК`] ?? '',
  };
}

/**
 * Whether the file is a statement of this account alone: a bank writes a `СекцияРасчСчет` for each account it
 * covers, so this holds when there are such sections and every one is this account's.
 */
const isStatementOfOnly = (parsed: ParsedExchangeFile, account: string): boolean =>
  parsed.accounts.length > 0 && parsed.accounts.every((a) => a.fields['РасчСчет'] === account);

function directionOf(parsed: ParsedExchangeFile, doc: ExchangeDocument, platformAccount: string): 'debit' | 'credit' | null {
  const payer = partyOf(doc.fields, 'Плательщик').account;
  const payee = partyOf(doc.fields, 'Получатель').account;
  if (payer === platformAccount && payee !== platformAccount) return 'debit';
  if (payee === platformAccount && payer !== platformAccount) return 'credit';
  // A bank may leave its client's own account out of a line of the client's statement (a fee, a bank order): the
  // bank's debit and credit dates still say which way the money went. Only in a statement of this account alone, and
  // only for a side left empty: in a statement of several accounts such a line could be any of them.
  if (!isStatementOfOnly(parsed, platformAccount)) return null;
  if (payer === '' && doc.fields['ДатаСписано']) return 'debit';
  if (payee === '' && doc.fields['ДатаПоступило']) return 'credit';
  return null;
}

/**
 * Every operation of the statement on `platformAccount`, in the file's order, each with the payout ids its purpose
 * names. Operations naming no payout (a fee, a customer's payment, a return whose purpose only cites the order's
 * number) are kept with `payoutIds: []`, so the import can show an operator what it could not match; documents
 * between other accounts are left out. Throws ExchangeFileError for a document with no readable amount or date.
 */
export function statementLines(parsed: ParsedExchangeFile, platformAccount: string): StatementLine[] {
  const out: StatementLine[] = [];
  for (const doc of parsed.documents) {
    const direction = directionOf(parsed, doc, platformAccount);
    if (direction === null) continue;
    const { fields } = doc;
    const counterparty = partyOf(fields, direction === 'debit' ? 'Получатель' : 'Плательщик');
    const purpose = purposeOf(fields);
    out.push({
      direction,
      amountKopecks: kopecksOf(doc),
      date: dateOf(doc, direction === 'debit' ? fields['ДатаСписано'] : fields['ДатаПоступило']),
      number: fields['Номер'] ?? '',
      purpose: purpose.text,
      counterparty,
      // The printed lines joined without a space too: an id split where a bank wrapped the purpose is still found.
      payoutIds: payoutIdsIn(`${purpose.text} ${purpose.lines.join('')}`),
    });
  }
  return out;
}
