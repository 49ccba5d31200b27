/**
 * Russian bank details of a payout destination: INN, KPP, BIK and a settlement account, each checked the way the
 * tax service (FNS) and the Bank of Russia define them, so a typo is caught when the merchant types it rather than
 * when the bank returns the money days later.
 */
import { firstUnencodableCharacter } from './windows-1251';

/** The bank details of a `bank_account` destination, as the merchant entered them. */
export interface BankAccountDetails {
  recipient_name: string;
  inn: string;
  kpp?: string | null;
  bik: string;
  account: string;
}

/** One problem with one field; `message` is English a merchant understands and never repeats the input. */
export interface BankAccountProblem {
  field: 'recipient_name' | 'inn' | 'kpp' | 'bik' | 'account';
  message: string;
}

/** A payment order's payee name holds at most 160 characters (Bank of Russia regulation 762-P, field 16). */
export const RECIPIENT_NAME_MAX = 160;

const INN_10_WEIGHTS = [2, 4, 10, 3, 5, 9, 4, 6, 8];
const INN_12_FIRST_WEIGHTS = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
const INN_12_SECOND_WEIGHTS = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
const ACCOUNT_KEY_WEIGHTS = [7, 1, 3];

const digitsAt = (text: string): number[] => Array.from(text, Number);

/** FNS check digit: the weighted sum of the digits before it, mod 11, mod 10. */
const innCheckDigit = (digits: readonly number[], weights: readonly number[]): number =>
  (weights.reduce((sum, weight, i) => sum + weight * (digits[i] ?? 0), 0) % 11) % 10;

/** INN of a legal entity (10 digits) or of an individual or sole proprietor (12 digits), check digits included. */
export function innValid(inn: string): boolean {
  if (/^\d{10}$/.test(inn)) {
    const d = digitsAt(inn);
    return innCheckDigit(d, INN_10_WEIGHTS) === d[9];
  }
  if (/^\d{12}$/.test(inn)) {
    const d = digitsAt(inn);
    return innCheckDigit(d, INN_12_FIRST_WEIGHTS) === d[10] && innCheckDigit(d, INN_12_SECOND_WEIGHTS) === d[11];
  }
  return false;
}

/** KPP: 4 digits (the tax office), 2 digits or capital Latin letters (the reason), 3 digits (a sequence number). */
export function kppValid(kpp: string): boolean {
  return /^\d{4}[\dA-Z]{2}\d{3}$/.test(kpp);
}

/** BIK: 9 digits; Russian banks' start with 04 (the country code of the Bank of Russia's directory). */
export function bikValid(bik: string): boolean {
  return /^04\d{7}$/.test(bik);
}

/**
 * Whether a 20-digit account's control key (its 9th digit) holds with the bank's BIK, by the Bank of Russia's
 * algorithm: the 3-digit conditional number of the bank followed by the account, 23 digits weighted 7, 1, 3 over and
 * over; the sum of the last digits of the products must end in 0. The conditional number is the BIK's last three
 * digits for a credit institution, and "0" + the BIK's digits 5–6 for a Bank of Russia settlement centre (a BIK
 * ending in 000 or 001). False when either is malformed.
 */
export function accountMatchesBik(account: string, bik: string): boolean {
  if (!/^\d{20}$/.test(account) || !bikValid(bik)) return false;
  const tail = bik.slice(6);
  const conditionalNumber = tail === '000' || tail === '001' ? `0${bik.slice(4, 6)}` : tail;
  const digits = digitsAt(conditionalNumber + account);
  const sum = digits.reduce((acc, digit, i) => acc + ((digit * (ACCOUNT_KEY_WEIGHTS[i % 3] ?? 0)) % 10), 0);
  return sum % 10 === 0;
}

/** Control characters (line breaks, tabs, ...) and characters no Russian bank's client can carry (windows-1251). */
function recipientNameProblem(name: string): string | null {
  if (name.trim() === '') return "Enter the recipient's name as the bank knows it.";
  // UTF-16 units count characters exactly for the windows-1251 text this must be (checked below).
  if (name.length > RECIPIENT_NAME_MAX) return `The recipient's name is too long: at most ${RECIPIENT_NAME_MAX} characters.`;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) return "The recipient's name must be one line of printable text.";
  if (firstUnencodableCharacter(name) !== null) {
    return "The recipient's name has a character banks cannot accept: use Russian or Latin letters, digits and ordinary punctuation.";
  }
  return null;
}

/** A KPP the caller did not give: absent, null or empty. */
const kppGiven = (kpp: string | null | undefined): kpp is string => kpp !== undefined && kpp !== null && kpp !== '';

/**
 * Every problem of a destination's bank details, one per field at most; an empty array means the details are valid.
 * A legal entity (10-digit INN) needs its KPP; an individual or sole proprietor (12-digit INN) has none. The
 * account is checked against the BIK only when both are well formed, so one typo gives one message.
 */
export function bankAccountProblems(details: BankAccountDetails): BankAccountProblem[] {
  const problems: BankAccountProblem[] = [];
  const nameProblem = recipientNameProblem(details.recipient_name);
  if (nameProblem !== null) problems.push({ field: 'recipient_name', message: nameProblem });

  const { inn, kpp, bik, account } = details;
  if (!/^(\d{10}|\d{12})$/.test(inn)) {
    problems.push({ field: 'inn', message: 'The INN must be 10 digits for a company or 12 digits for an individual or sole proprietor.' });
  } else if (!innValid(inn)) {
    problems.push({ field: 'inn', message: "The INN's check digits do not match: look for a mistyped digit." });
  }

  if (kppGiven(kpp)) {
    if (!kppValid(kpp)) {
      problems.push({ field: 'kpp', message: 'The KPP must be 9 characters: 4 digits, 2 digits or capital Latin letters, then 3 digits.' });
    } else if (inn.length === 12) {
      problems.push({ field: 'kpp', message: 'An individual or sole proprietor (12-digit INN) has no KPP: leave it empty.' });
    }
  } else if (inn.length === 10) {
    problems.push({ field: 'kpp', message: "A company (10-digit INN) needs its KPP: it is on the company's registration documents." });
  }

  if (!bikValid(bik)) {
    problems.push({ field: 'bik', message: "The BIK must be 9 digits starting with 04: it is on the bank's details page." });
  }
  if (!/^\d{20}$/.test(account)) {
    problems.push({ field: 'account', message: 'The account number must be 20 digits.' });
  } else if (bikValid(bik) && !accountMatchesBik(account, bik)) {
    problems.push({ field: 'account', message: "The account number does not match the bank's BIK: check both for a mistyped digit." });
  }
  return problems;
}

/** An account as a merchant may be shown it anywhere: its last four digits only (`•••• 1234`). */
export function maskBankAccount(account: string): string {
  const lastFour = account.replace(/\D/g, '').slice(-4);
  return lastFour.length === 4 ? `•••• ${lastFour}` : '••••';
}
