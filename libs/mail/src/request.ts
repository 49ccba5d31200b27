/** The languages a mail is written in: the user's. */
export type MailLanguage = 'ru' | 'en';

/**
 * Every mail the platform sends, and the params each one reads (all strings; links are full URLs at PUBLIC_BASE_URL,
 * made by the caller, who alone knows the token):
 * - signup_confirm: { link } — confirms the email (24 h);
 * - signup_exists: { link } — someone signed up with an email that has an account; a link to sign in or reset;
 * - password_reset: { link } — 1 h;
 * - invitation: { link, account_name, role, inviter_email } — 72 h;
 * - password_changed: {};
 * - second_factor_added / second_factor_removed: { factor } — 'totp' | 'passkey';
 * - second_factor_code_reused: { link } — a right TOTP code came a second time and was refused (ASVS 2.8.5), at most
 *   once an hour per user (docs/adr/0028); `link` the dashboard's Security page. The code itself is never a param;
 * - api_key_created: { label, mode };
 * - new_sign_in: { address, user_agent };
 * - payout_destination_added: { kind, masked, active_at } — to every member with payout rights (kind: bank_account | crypto_address);
 * - daily_report: { link, report_link, account_name, date, shops, more_shops } — each morning to the members who opted in
 *   (ADR 49): `link` the dashboard, `report_link` the CSV route each shop's link is made from, `shops` JSON
 *   (`DailyReportShop[]` of daily-report.ts, at most 20), `more_shops` how many more the account has.
 */
export type MailTemplate =
  | 'signup_confirm'
  | 'signup_exists'
  | 'password_reset'
  | 'invitation'
  | 'password_changed'
  | 'second_factor_added'
  | 'second_factor_removed'
  | 'second_factor_code_reused'
  | 'api_key_created'
  | 'new_sign_in'
  | 'payout_destination_added'
  | 'daily_report';

export interface MailRequest {
  to: string;
  template: MailTemplate;
  language: MailLanguage;
  params: Record<string, string>;
}
