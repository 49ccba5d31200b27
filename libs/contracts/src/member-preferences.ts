import { z } from 'zod';

/**
 * `GET /api/v1/me/preferences`: the signed-in member's own settings in the session's account (each account of a
 * user has its own). `daily_report_mail`: yesterday's figures of the account's shops mailed each morning (docs/adr/0049).
 */
export const memberPreferences = z.object({ daily_report_mail: z.boolean() });
export type MemberPreferences = z.infer<typeof memberPreferences>;

/** `PATCH /api/v1/me/preferences`: the one setting, required (strict: anything else is 400). */
export const updateMemberPreferencesBody = z.strictObject({ daily_report_mail: z.boolean() });
export type UpdateMemberPreferencesBody = z.infer<typeof updateMemberPreferencesBody>;
