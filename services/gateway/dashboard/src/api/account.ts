import { call, client, present } from './client';
import type { ApiKeyView, ApiKeyWithSecret, AuditEvent, MeView, Mode } from '../types';
import type { CursorPage } from './client';

/** The session API's calls about the merchant's account: signing in and out, the password, security events, API keys. */

/** What sign-in's first step leaves to do: nothing (signed in), or a second factor for this challenge. */
export type SecondStep = { challenge: string; methods: string[] } | null;

export const signIn = async (body: { email: string; password: string }): Promise<SecondStep> => {
  const answer = await call(client.POST('/api/v1/auth/login', { body }));
  return 'two_factor_required' in answer ? { challenge: answer.challenge, methods: answer.methods } : null;
};

/** Sign-in's second step with a typed factor: a TOTP `code` or a `recovery_code`, for the first step's challenge. */
export const signInSecondFactor = async (body: { challenge: string } & ({ code: string } | { recovery_code: string })): Promise<void> => {
  await call(client.POST('/api/v1/auth/login/2fa', { body }));
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
