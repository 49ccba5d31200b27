import { isAddressOf, type BankAccountDetails, type CreatePayoutDestinationBody, type CryptoAddressDetails } from '@pl/contracts';
import type { FieldIssue } from '@pl/errors';

/** One thing wrong with a destination's details: the field (as the body names it, `bank_account.inn`) and why. */
export interface DetailProblem {
  field: string;
  message: string;
}

const digits = (value: string, count: number): boolean => new RegExp(`^[0-9]{${count}}$`).test(value);

/**
 * What is wrong with a bank account's details, field by field (docs/payouts.md, "Destinations"): the shape only, digits
 * and lengths, and a KPP with (and only with) a 10-digit INN. The check digits of the INN and the account's control
 * key with the BIK are @pl/payout-rails' validators: they take this function's body at merge, keeping its signature.
 */
export function bankAccountProblems(details: BankAccountDetails): DetailProblem[] {
  const problems: DetailProblem[] = [];
  const at = (field: string, message: string) => problems.push({ field: `bank_account.${field}`, message });
  if (details.recipient_name.trim() === '') at('recipient_name', 'must not be blank');
  if (!digits(details.inn, 10) && !digits(details.inn, 12)) at('inn', 'must be 10 digits (an organisation) or 12 digits (a person)');
  const kpp = details.kpp ?? null;
  if (digits(details.inn, 10) && kpp === null) at('kpp', 'is required with a 10-digit INN');
  if (kpp !== null && !digits(kpp, 9)) at('kpp', 'must be 9 digits');
  if (kpp !== null && digits(details.inn, 12)) at('kpp', 'is only taken with a 10-digit INN');
  if (!digits(details.bik, 9)) at('bik', 'must be 9 digits');
  if (!digits(details.account, 20)) at('account', 'must be 20 digits');
  return problems;
}

/** A crypto address is judged as a crypto refund's destination is: its network's format and checksum. */
export function cryptoAddressProblems(details: CryptoAddressDetails): DetailProblem[] {
  return isAddressOf(details.network, details.address)
    ? []
    : [{ field: 'crypto_address.address', message: `is not a valid ${details.network} address` }];
}

export function destinationProblems(body: CreatePayoutDestinationBody): FieldIssue[] {
  const problems = body.type === 'bank_account' ? bankAccountProblems(body.bank_account) : cryptoAddressProblems(body.crypto_address);
  return problems.map((p) => ({ field: p.field, code: 'custom', message: p.message }));
}

/** The form a destination is shown in: an account's last four digits, an address's first six and last four characters. */
export function maskedDestination(body: CreatePayoutDestinationBody): string {
  if (body.type === 'bank_account') return `•••• ${body.bank_account.account.slice(-4)}`;
  const { address } = body.crypto_address;
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}
