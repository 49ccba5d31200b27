/**
 * Whether the user in `userColumn` has a second factor on (TOTP confirmed, or a passkey), as SQL: the one definition
 * the session check (policy, step-up) and the repositories share.
 */
export const HAS_SECOND_FACTOR = (userColumn: string): string =>
  `(EXISTS (SELECT 1 FROM user_totp t WHERE t.user_id = ${userColumn} AND t.confirmed_at IS NOT NULL)` +
  ` OR EXISTS (SELECT 1 FROM passkeys pk WHERE pk.user_id = ${userColumn}))`;
