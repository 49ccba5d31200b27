import type { PasskeyView } from '@pl/contracts';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { call, client } from './client';

/**
 * The signed-in user's passkeys (`/api/v1/me/2fa/passkeys`, docs/adr/0029-passkeys.md). The WebAuthn objects pass
 * through untouched between @simplewebauthn/server and @simplewebauthn/browser; the OpenAPI document describes them
 * loosely (browsers add members), so they are typed here by the library's own types.
 */

export const listPasskeys = (): Promise<{ passkeys: PasskeyView[] }> => call(client.GET('/api/v1/me/2fa/passkeys'));

/** Options for `startRegistration`: a challenge good for 5 minutes and one answer. */
export const passkeyRegistrationOptions = async (): Promise<PublicKeyCredentialCreationOptionsJSON> =>
  (await call(client.POST('/api/v1/me/2fa/passkeys/registration-options', { body: {} }))) as PublicKeyCredentialCreationOptionsJSON;

export const registerPasskey = (name: string, response: RegistrationResponseJSON): Promise<PasskeyView> =>
  call(
    client.POST('/api/v1/me/2fa/passkeys', {
      // Spread into plain objects: the schema's open records have index signatures the library's interfaces lack.
      body: { name, response: { ...response, response: { ...response.response }, clientExtensionResults: { ...response.clientExtensionResults } } },
    }),
  );

export const renamePasskey = (id: string, name: string): Promise<PasskeyView> =>
  call(client.PATCH('/api/v1/me/2fa/passkeys/{id}', { params: { path: { id } }, body: { name } }));

export const removePasskey = async (id: string): Promise<void> => {
  await call(client.DELETE('/api/v1/me/2fa/passkeys/{id}', { params: { path: { id } } }));
};

/** Options for `startAuthentication` at sign-in's second step; fetching them takes none of the challenge's tries. */
export const loginPasskeyOptions = async (challenge: string): Promise<PublicKeyCredentialRequestOptionsJSON> =>
  (await call(client.POST('/api/v1/auth/login/2fa/passkey-options', { body: { challenge } }))) as PublicKeyCredentialRequestOptionsJSON;

/** Sign-in's second step with a passkey: the assertion `startAuthentication` made for those options. */
export const signInWithPasskey = async (challenge: string, assertion: AuthenticationResponseJSON): Promise<void> => {
  const passkey = { ...assertion, response: { ...assertion.response }, clientExtensionResults: { ...assertion.clientExtensionResults } };
  await call(client.POST('/api/v1/auth/login/2fa', { body: { challenge, passkey } }));
};
