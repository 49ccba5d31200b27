/**
 * Payment orders as a 1C exchange file (`1CClientBankExchange`, format 1.03, windows-1251), the file every Russian
 * bank's client uploads. Each value is checked before it is written: a value that would break its line or lose a
 * character in windows-1251 is refused, never written as a corrupt order. docs/adr/0037-payout-rails-1c-exchange.md.
 */
import { formatKopecks } from '@pl/money';
import { bankAccountProblems } from './bank-details';
import { ExchangeFileError } from './exchange-file-error';
import { moscowDate, moscowTime } from './moscow-time';
import { encodeWindows1251, firstUnencodableCharacter } from './windows-1251';

/** The platform's own account, the payer of every order (PAYOUT_PAYER_* in the spec). */
export interface PayerAccount {
  name: string;
  inn: string;
  kpp?: string | null;
  bik: string;
  account: string;
  /** The bank's name as on its details page (`ПлательщикБанк1`). */
  bank: string;
  /** The bank's correspondent account; bank clients fill it from the BIK when it is left out. */
  correspondentAccount?: string;
}

/** Where one order sends the money: a payout destination's bank details. */
export interface PaymentOrderPayee {
  name: string;
  inn: string;
  kpp?: string | null;
  bik: string;
  account: string;
  bank?: string;
  correspondentAccount?: string;
}

export interface PaymentOrder {
  /** The order's number, 1..999999 (a payment order's number has at most six digits), unique in the file. */
  number: number;
  /** Written as its Moscow calendar date. */
  date: Date;
  /** Whole kopecks, more than zero. */
  amountKopecks: number;
  payee: PaymentOrderPayee;
  /** One line of at most 210 characters (a payment order's purpose field); name the payout id here. */
  purpose: string;
}

export interface PaymentOrdersFile {
  payer: PayerAccount;
  orders: readonly PaymentOrder[];
  /** `ДатаСоздания` and `ВремяСоздания`, in Moscow time. */
  createdAt: Date;
  /** The sending program (`Отправитель`). */
  sender?: string;
}

/** The 1C exchange format's document kind for a payment order. */
export const PAYMENT_ORDER_KIND = 'Платежное поручение';
const PURPOSE_MAX = 210;
const ORDER_NUMBER_MAX = 999_999;
const DEFAULT_SENDER = 'Payment links platform';

/** A value as it may stand in the file: one line, every character in windows-1251. */
function checkedValue(value: string, field: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value)) {
    throw new ExchangeFileError('unsafe_value', `${field} has a line break or another control character`, { field });
  }
  if (firstUnencodableCharacter(value) !== null) {
    throw new ExchangeFileError('not_encodable', `${field} has a character that windows-1251 cannot encode`, { field });
  }
  return value;
}

/** One `key=value` line; `field` names the input the value came from, for the error that refuses it. */
const entry = (key: string, value: string, field: string): string => `${key}=${checkedValue(value, field)}`;

function checkBankDetails(party: PayerAccount | PaymentOrderPayee, field: string): void {
  const problems = bankAccountProblems({
    recipient_name: party.name,
    inn: party.inn,
    kpp: party.kpp ?? null,
    bik: party.bik,
    account: party.account,
  });
  const first = problems[0];
  if (first === undefined) return;
  const name = first.field === 'recipient_name' ? 'name' : first.field;
  throw new ExchangeFileError('invalid_bank_details', `${field}.${name}: ${first.message}`, { field: `${field}.${name}` });
}

function checkOrder(order: PaymentOrder, field: string): void {
  if (!Number.isSafeInteger(order.amountKopecks) || order.amountKopecks <= 0) {
    throw new ExchangeFileError('invalid_value', `${field}.amountKopecks must be a whole number of kopecks above zero`, {
      field: `${field}.amountKopecks`,
    });
  }
  if (!Number.isInteger(order.number) || order.number < 1 || order.number > ORDER_NUMBER_MAX) {
    throw new ExchangeFileError('invalid_value', `${field}.number must be a whole number from 1 to ${ORDER_NUMBER_MAX}`, {
      field: `${field}.number`,
    });
  }
  if (Number.isNaN(order.date.getTime())) {
    throw new ExchangeFileError('invalid_value', `${field}.date is not a valid date`, { field: `${field}.date` });
  }
  // UTF-16 units count characters exactly for windows-1251 text; other text is refused when written.
  if (order.purpose.trim() === '' || order.purpose.length > PURPOSE_MAX) {
    throw new ExchangeFileError('invalid_value', `${field}.purpose must be 1 to ${PURPOSE_MAX} characters`, { field: `${field}.purpose` });
  }
  checkBankDetails(order.payee, `${field}.payee`);
}

/** A party's lines; optional values are left out rather than written empty, which some bank clients refuse. */
function partyLines(role: 'Плательщик' | 'Получатель', party: PayerAccount | PaymentOrderPayee, field: string): string[] {
  const lines = [
    entry(`${role}Счет`, party.account, `${field}.account`),
    entry(role, party.name, `${field}.name`),
    entry(`${role}ИНН`, party.inn, `${field}.inn`),
  ];
  if (party.kpp) lines.push(entry(`${role}КПП`, party.kpp, `${field}.kpp`));
  lines.push(entry(`${role}1`, party.name, `${field}.name`), entry(`${role}РасчСчет`, party.account, `${field}.account`));
  if (party.bank) lines.push(entry(`${role}Банк1`, party.bank, `${field}.bank`));
  lines.push(entry(`${role}БИК`, party.bik, `${field}.bik`));
  if (party.correspondentAccount) lines.push(entry(`${role}Корсчет`, party.correspondentAccount, `${field}.correspondentAccount`));
  return lines;
}

function orderLines(order: PaymentOrder, payer: PayerAccount, field: string): string[] {
  return [
    entry('СекцияДокумент', PAYMENT_ORDER_KIND, field),
    entry('Номер', String(order.number), `${field}.number`),
    entry('Дата', moscowDate(order.date), `${field}.date`),
    entry('Сумма', formatKopecks(order.amountKopecks), `${field}.amountKopecks`),
    ...partyLines('Плательщик', payer, 'payer'),
    ...partyLines('Получатель', order.payee, `${field}.payee`),
    // 01: a payment order; 5: the ordinary priority of payments between businesses (Civil Code, article 855).
    entry('ВидОплаты', '01', field),
    entry('Очередность', '5', field),
    entry('НазначениеПлатежа', order.purpose, `${field}.purpose`),
    // The purpose line by line as printed; it is one line, since a purpose may hold no line break.
    entry('НазначениеПлатежа1', order.purpose, `${field}.purpose`),
    'КонецДокумента',
  ];
}

/**
 * The whole exchange file of payment orders from the platform's account, CRLF line ends, windows-1251 bytes.
 * Throws ExchangeFileError before writing anything when a value cannot be written faithfully.
 */
export function exportPaymentOrders(file: PaymentOrdersFile): Buffer {
  const { payer, orders, createdAt } = file;
  if (orders.length === 0) throw new ExchangeFileError('invalid_value', 'A payment file needs at least one order', { field: 'orders' });
  if (Number.isNaN(createdAt.getTime())) throw new ExchangeFileError('invalid_value', 'createdAt is not a valid date', { field: 'createdAt' });
  checkBankDetails(payer, 'payer');
  const numbers = new Set<number>();
  orders.forEach((order, i) => {
    checkOrder(order, `orders.${i}`);
    // Bank clients take a repeated number and date for a repeated upload, and warn about it or refuse the order.
    if (numbers.has(order.number))
      throw new ExchangeFileError('invalid_value', `orders.${i}.number repeats another order's`, { field: `orders.${i}.number` });
    numbers.add(order.number);
  });
  const dates = orders.map((o) => o.date.getTime());
  const lines = [
    '1CClientBankExchange',
    entry('ВерсияФормата', '1.03', 'format'),
    entry('Кодировка', 'Windows', 'format'),
    entry('Отправитель', file.sender ?? DEFAULT_SENDER, 'sender'),
    entry('Получатель', '', 'format'),
    entry('ДатаСоздания', moscowDate(createdAt), 'createdAt'),
    entry('ВремяСоздания', moscowTime(createdAt), 'createdAt'),
    entry('ДатаНачала', moscowDate(new Date(Math.min(...dates))), 'orders'),
    entry('ДатаКонца', moscowDate(new Date(Math.max(...dates))), 'orders'),
    entry('РасчСчет', payer.account, 'payer.account'),
    entry('Документ', PAYMENT_ORDER_KIND, 'format'),
    ...orders.flatMap((order, i) => orderLines(order, payer, `orders.${i}`)),
    'КонецФайла',
  ];
  return encodeWindows1251(`${lines.join('\r\n')}\r\n`);
}
