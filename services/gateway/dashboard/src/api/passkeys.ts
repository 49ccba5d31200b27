import type { PasskeyView } from '@pl/contracts';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/browser';
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
