import { AppError, type FieldIssue } from '@pl/errors';
import { bankAccountProblems, type PayerAccount } from '@pl/payout-rails';

/** Each bank-details field of the payer and the variable it comes from. */
const VARIABLE_OF = {
  recipient_name: 'PAYOUT_PAYER_NAME',
  inn: 'PAYOUT_PAYER_INN',
  kpp: 'PAYOUT_PAYER_KPP',
  bik: 'PAYOUT_PAYER_BIK',
  account: 'PAYOUT_PAYER_ACCOUNT',
} as const;

const invalidPayer = (issues: FieldIssue[]): AppError =>
  new AppError(
    'validation',
    'common.err.invalid_config',
    `The platform's bank account (the payer of bank payouts) is not set right: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
    issues,
  );

const blank = (env: NodeJS.ProcessEnv, name: string): FieldIssue[] =>
  (env[name] ?? '').trim() === '' ? [{ field: name, code: 'invalid_config', message: 'is not set' }] : [];

/**
 * The platform's own account, the payer of every bank payout (docs/payouts.md, PAYOUT_PAYER_*), checked before a
 * command reads or writes anything: every variable set, the INN, KPP, BIK and the account's control key holding.
 * Values are taken as given (a stray space is an error, not trimmed away) since they go on payment orders as they are.
 */
export function loadPayoutPayer(env: NodeJS.ProcessEnv): PayerAccount {
  const missing = ['PAYOUT_PAYER_NAME', 'PAYOUT_PAYER_INN', 'PAYOUT_PAYER_BIK', 'PAYOUT_PAYER_ACCOUNT', 'PAYOUT_PAYER_BANK'].flatMap((n) =>
    blank(env, n),
  );
  if (missing.length > 0) throw invalidPayer(missing);
  const payer: PayerAccount = {
    name: env.PAYOUT_PAYER_NAME ?? '',
    inn: env.PAYOUT_PAYER_INN ?? '',
    kpp: env.PAYOUT_PAYER_KPP || null,
    bik: env.PAYOUT_PAYER_BIK ?? '',
    account: env.PAYOUT_PAYER_ACCOUNT ?? '',
    bank: env.PAYOUT_PAYER_BANK ?? '',
  };
  const problems = bankAccountProblems({
    recipient_name: payer.name,
    inn: payer.inn,
    kpp: payer.kpp ?? null,
    bik: payer.bik,
    account: payer.account,
  });
  if (problems.length > 0) throw invalidPayer(problems.map((p) => ({ field: VARIABLE_OF[p.field], code: 'invalid_config', message: p.message })));
  return payer;
}
