import { call, client } from './client';

/** Opening and recovering an account without a session; none of these answers tells whether an email is known. */

export const signUp = async (body: { email: string; password: string; account_name: string; language: 'ru' | 'en' }): Promise<void> => {
  await call(client.POST('/api/v1/auth/signup', { body }));
};

export const confirmEmail = async (token: string): Promise<void> => {
  await call(client.POST('/api/v1/auth/confirm-email', { body: { token } }));
};

/** Mails the signed-in user's confirmation link again. */
export const resendConfirmation = async (): Promise<void> => {
  await call(client.POST('/api/v1/auth/confirm-email/resend', { body: {} }));
};

export const requestPasswordReset = async (email: string): Promise<void> => {
  await call(client.POST('/api/v1/auth/password-reset', { body: { email } }));
};

export const resetPassword = async (body: { token: string; new_password: string }): Promise<void> => {
  await call(client.POST('/api/v1/auth/password-reset/confirm', { body }));
};
