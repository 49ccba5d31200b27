import { isAddressOf, type BankAccountDetails, type CreatePayoutDestinationBody, type CryptoAddressDetails } from '@pl/contracts';
import type { FieldIssue } from '@pl/errors';
import { bankAccountProblems as bankDetailProblems, maskBankAccount } from '@pl/payout-rails';

/** One thing wrong with a destination's details: the field (as the body names it, `bank_account.inn`) and why. */
export interface DetailProblem {
  field: string;
  message: string;
}

/**
 * What is wrong with a bank account's details, field by field (docs/payouts.md, "Destinations"): the INN's and the
 * KPP's forms and check digits, the BIK, and the account's control key with the BIK (@pl/payout-rails, ADR 0037), so a
 * payment order the bank would refuse is refused when the merchant types it.
 */
export function bankAccountProblems(details: BankAccountDetails): DetailProblem[] {
  return bankDetailProblems(details).map((p) => ({ field: `bank_account.${p.field}`, message: p.message }));
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
  if (body.type === 'bank_account') return maskBankAccount(body.bank_account.account);
  const { address } = body.crypto_address;
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}
