import { z } from 'zod';
import { moscowDate, uuid } from './fields';
import { identifierText, visibleName } from './text';

/**
 * Passkeys (WebAuthn credentials) as a second factor, docs/adr/0029-passkeys.md. The WebAuthn objects are the
 * JSON forms of the W3C spec (`PublicKeyCredentialCreationOptionsJSON`, `RegistrationResponseJSON`...), which
 * `@simplewebauthn/browser` turns into `navigator.credentials` calls and back: a client passes them through
 * untouched. Objects the browser makes are loose (browsers add members over time); a member we read is checked.
 */

export const PASSKEY_NAME_MAX_LENGTH = 64;
/** Base64url without padding, as WebAuthn's JSON encodes every byte string. */
const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, { message: 'must be base64url' });

const transports = z.array(z.string().max(32)).max(16);
const credentialDescriptor = z.object({ id: base64url(1024), type: z.literal('public-key'), transports: transports.optional() });
const clientExtensionResults = z.record(z.string(), z.unknown());

/** What the browser's `navigator.credentials.create()` needs: pass it to `startRegistration({ optionsJSON })`. */
export const passkeyRegistrationOptions = z.looseObject({
  rp: z.object({ id: z.string().optional(), name: z.string() }),
  user: z.object({ id: base64url(128), name: z.string(), displayName: z.string() }),
  challenge: base64url(128),
  pubKeyCredParams: z.array(z.object({ type: z.literal('public-key'), alg: z.number().int() })),
  timeout: z.number().int().optional(),
  excludeCredentials: z.array(credentialDescriptor).optional(),
  authenticatorSelection: z.looseObject({}).optional(),
  attestation: z.string().optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
  hints: z.array(z.string()).optional(),
});

/** What the browser's `navigator.credentials.get()` needs: pass it to `startAuthentication({ optionsJSON })`. */
export const passkeyAuthenticationOptions = z.looseObject({
  challenge: base64url(128),
  rpId: z.string().optional(),
  timeout: z.number().int().optional(),
  allowCredentials: z.array(credentialDescriptor).optional(),
  userVerification: z.string().optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
  hints: z.array(z.string()).optional(),
});
export type PasskeyAuthenticationOptions = z.infer<typeof passkeyAuthenticationOptions>;

/** `startRegistration()`'s answer (`RegistrationResponseJSON`), as the browser made it. */
export const passkeyRegistrationResponse = z.looseObject({
  id: base64url(1024),
  rawId: base64url(1024),
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: base64url(8192),
    attestationObject: base64url(32_768),
    transports: transports.optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: clientExtensionResults.default({}),
});

/** `startAuthentication()`'s answer (`AuthenticationResponseJSON`): the `passkey` of a second-factor step. */
export const passkeyAssertion = z.looseObject({
  id: base64url(1024),
  rawId: base64url(1024),
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: base64url(8192),
    authenticatorData: base64url(8192),
    signature: base64url(2048),
    userHandle: base64url(1024).optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: clientExtensionResults.default({}),
});
export type PasskeyAssertion = z.infer<typeof passkeyAssertion>;

const passkeyName = visibleName(PASSKEY_NAME_MAX_LENGTH);

export const registerPasskeyBody = z.strictObject({ name: passkeyName, response: passkeyRegistrationResponse });
export const renamePasskeyBody = z.strictObject({ name: passkeyName });
/** `POST /api/v1/auth/login/2fa/passkey-options`: the sign-in challenge that `login` answered names the user. */
export const loginPasskeyOptionsBody = z.strictObject({ challenge: identifierText(128) });

/** A passkey as the user sees it: never its public key or credential id. */
export const passkeyView = z.object({
  id: uuid,
  name: z.string(),
  created_at: moscowDate,
  /** The last time it served as the second factor; null until then. */
  last_used_at: moscowDate.nullable(),
});
export type PasskeyView = z.infer<typeof passkeyView>;
export const passkeyList = z.object({ passkeys: z.array(passkeyView) });
