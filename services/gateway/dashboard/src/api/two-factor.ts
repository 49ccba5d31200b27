import type { LoginChallenge, RecoveryCodeSet, SessionView, TotpEnrollment } from '@pl/contracts';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { call, client } from './client';

/**
 * Second factors (docs/adr/0028-second-factors-and-step-up.md, 0029-passkeys.md): sign-in's second step, step-up, the
 * user's TOTP and recovery codes, their sessions, and the account's policy.
 */

export type { LoginChallenge, SessionView };

/** One proof of a second factor, as the second step and step-up take it. */
export type SecondFactorProof = { code: string } | { recovery_code: string } | { passkey: AuthenticationResponseJSON };

/** The WebAuthn assertion as plain objects: the schema's open records have index signatures the library's types lack. */
const plainProof = (proof: SecondFactorProof) =>
  'passkey' in proof
    ? {
        passkey: {
          ...proof.passkey,
          response: { ...proof.passkey.response },
          clientExtensionResults: { ...proof.passkey.clientExtensionResults },
        },
      }
    : proof;

export const answerSecondStep = async (challenge: string, proof: SecondFactorProof): Promise<void> => {
  await call(client.POST('/api/v1/auth/login/2fa', { body: { challenge, ...plainProof(proof) } }));
};

/** Options for `startAuthentication` at sign-in: looked at, not tried (the challenge keeps its tries). */
export const loginPasskeyOptions = async (challenge: string): Promise<PublicKeyCredentialRequestOptionsJSON> =>
  (await call(client.POST('/api/v1/auth/login/2fa/passkey-options', { body: { challenge } }))) as PublicKeyCredentialRequestOptionsJSON;

/** A second factor verified now: the session may do what moves money or credentials for 10 minutes. */
export const stepUp = async (proof: { code: string } | { passkey: AuthenticationResponseJSON }): Promise<void> => {
  await call(client.POST('/api/v1/auth/step-up', { body: plainProof(proof) as { code: string } }));
};

export const stepUpPasskeyOptions = async (): Promise<PublicKeyCredentialRequestOptionsJSON> =>
  (await call(client.POST('/api/v1/auth/step-up/passkey-options', { body: {} }))) as PublicKeyCredentialRequestOptionsJSON;

/** A new TOTP secret to scan; off until confirmed with a code. */
export const startTotp = (): Promise<TotpEnrollment> => call(client.POST('/api/v1/me/2fa/totp', { body: {} }));

/** Turns TOTP on; the answer is the recovery codes, shown once. */
export const confirmTotp = (code: string): Promise<RecoveryCodeSet> => call(client.POST('/api/v1/me/2fa/totp/confirm', { body: { code } }));

export const disableTotp = async (): Promise<void> => {
  await call(client.DELETE('/api/v1/me/2fa/totp'));
};

/** A new set of recovery codes; the old set stops working. */
export const regenerateRecoveryCodes = (): Promise<RecoveryCodeSet> => call(client.POST('/api/v1/me/2fa/recovery-codes', { body: {} }));

export const listSessions = (): Promise<{ sessions: SessionView[] }> => call(client.GET('/api/v1/me/sessions'));

export const endSession = async (id: string): Promise<void> => {
  await call(client.DELETE('/api/v1/me/sessions/{id}', { params: { path: { id } } }));
};

export const endOtherSessions = async (): Promise<void> => {
  await call(client.POST('/api/v1/me/sessions/revoke-others', { body: {} }));
};

/** The owner's policy: every member needs a second factor. */
export const setRequireTwoFactor = (requireTwoFactor: boolean): Promise<{ require_two_factor: boolean }> =>
  call(client.PATCH('/api/v1/account', { body: { require_two_factor: requireTwoFactor } }));
