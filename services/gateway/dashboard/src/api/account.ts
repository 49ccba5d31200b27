import { call, client, present } from './client';
import type { LoginChallenge } from '@pl/contracts';
import type { ApiKeyView, ApiKeyWithSecret, AuditEvent, MeView, Mode } from '../types';
import type { CursorPage } from './client';

/** The session API's calls about the merchant's account: signing in and out, the password, security events, API keys. */

/** Signs in, or answers the challenge of the second step when the user has a second factor (then no session yet). */
export const signIn = async (body: { email: string; password: string }): Promise<LoginChallenge | null> => {
  const answer: object = await call(client.POST('/api/v1/auth/login', { body }));
  return 'two_factor_required' in answer ? (answer as LoginChallenge) : null;
};

export const signOut = async (): Promise<void> => {
  await call(client.POST('/api/v1/auth/logout'));
};

export const getMe = (): Promise<MeView> => call(client.GET('/api/v1/me'));

export const changePassword = async (body: { current_password: string; new_password: string }): Promise<void> => {
  await call(client.POST('/api/v1/auth/password', { body }));
};

export const listAuditEvents = (cursor: string | null): Promise<CursorPage & { audit_events: AuditEvent[] }> =>
  call(client.GET('/api/v1/audit-events', { params: { query: present({ limit: '20', cursor }) } }));

export const listApiKeys = (): Promise<{ api_keys: ApiKeyView[] }> => call(client.GET('/api/v1/api-keys'));

export const createApiKey = (body: { label?: string; mode: Mode }): Promise<ApiKeyWithSecret> => call(client.POST('/api/v1/api-keys', { body }));

export const reissueApiKey = (id: string, graceMinutes: number): Promise<ApiKeyWithSecret> =>
  call(client.POST('/api/v1/api-keys/{id}/reissue', { params: { path: { id } }, body: { grace_minutes: graceMinutes } }));

export const revokeApiKey = async (id: string): Promise<void> => {
  await call(client.POST('/api/v1/api-keys/{id}/revoke', { params: { path: { id } }, body: {} }));
};

/** The member's own settings in the session's account: the daily report mail (roles that read money). */
export const getPreferences = (): Promise<{ daily_report_mail: boolean }> => call(client.GET('/api/v1/me/preferences'));

export const setDailyReportMail = (on: boolean): Promise<{ daily_report_mail: boolean }> =>
  call(client.PATCH('/api/v1/me/preferences', { body: { daily_report_mail: on } }));
