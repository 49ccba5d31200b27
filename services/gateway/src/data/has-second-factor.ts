/**
 * Whether the user in `userColumn` has a second factor on, as SQL: the one definition the session check (policy,
 * step-up) and the repositories share. The passkeys module ORs its table in here.
 */
export const HAS_SECOND_FACTOR = (userColumn: string): string =>
  `EXISTS (SELECT 1 FROM user_totp t WHERE t.user_id = ${userColumn} AND t.confirmed_at IS NOT NULL)`;
