import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { passkeyAssertion } from '@pl/contracts';
import { isAppError, passkeyAlreadyRegistered, passkeyLimitReached, passkeyVerificationFailed } from '@pl/errors';
import type { SecondFactorVerifier } from './second-factor';

/** A stored passkey: what verifying an assertion needs, and what its owner sees. */
export interface Passkey {
  id: string;
  userId: string;
  /** base64url, as WebAuthn's JSON names the credential. */
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export type NewPasskey = Pick<Passkey, 'credentialId' | 'publicKey' | 'counter' | 'transports' | 'name'>;

/** Who changed a user's passkeys, for the audit log of the session's account. */
export interface PasskeyActor {
  userId: string;
  merchantId: string;
  ip: string | null;
}

/** What became of a registration: stored, or refused and why. */
export type AddOutcome = { outcome: 'added'; passkey: Passkey } | { outcome: 'limit_reached' } | { outcome: 'already_registered' };

/** What a challenge was issued for: a registration is never accepted as an authentication, nor back. */
export type ChallengePurpose = 'registration' | 'authentication';

/** A user may keep this many passkeys (a few devices and security keys, with room to spare). */
const MAX_PASSKEYS_PER_USER = 10;

/** ES256 first (every platform authenticator has it), then Ed25519 and RS256 (some security keys, Windows Hello). */
const ALGORITHMS = [-7, -8, -257];

/** How long the browser waits for the user: the challenge's own lifetime (data/webauthn-challenges.ts). */
const CEREMONY_TIMEOUT_MS = 300_000;

/** Where the passkeys are kept (data/passkey.repository.ts). */
export interface PasskeyStore {
  list(userId: string): Promise<Passkey[]>;
  findByCredential(userId: string, credentialId: string): Promise<Passkey | null>;
  add(actor: PasskeyActor, passkey: NewPasskey, max: number): Promise<AddOutcome>;
  recordUse(id: string, counter: number): Promise<boolean>;
}

/** The open challenges (data/webauthn-challenges.ts): issued once, taken once. */
export interface ChallengeStore {
  issue(purpose: ChallengePurpose, userId: string, challenge: string): Promise<void>;
  take(purpose: ChallengePurpose, userId: string, challenge: string): Promise<boolean>;
}

/** The Relying Party: the dashboard's site, from `PUBLIC_BASE_URL`. */
export interface RelyingParty {
  /** The host name (`pay.example.com`): a passkey is bound to it and works on it and nowhere else. */
  id: string;
  /** The exact origin the browser reports (`https://pay.example.com`). */
  origin: string;
  name: string;
}

export function relyingPartyOf(publicBaseUrl: string): RelyingParty {
  const url = new URL(publicBaseUrl);
  return { id: url.hostname, origin: url.origin, name: 'Payment links' };
}

/** The WebAuthn user handle: the user's id as its 16 bytes (no email or name in it, as WebAuthn asks). */
const userHandle = (userId: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(userId.replaceAll('-', ''), 'hex'));

const descriptor = (p: Passkey) => ({ id: p.credentialId, transports: p.transports });

/**
 * Passkeys as a second factor (docs/adr/0029-passkeys.md): registration ceremonies for a signed-in user, and the
 * authentication seam the second-factor steps of sign-in and step-up use. The password is the first factor, so a
 * passkey proves possession: user verification is asked for ("preferred") but not required, user presence is.
 */
export class Passkeys {
  constructor(
    private readonly store: PasskeyStore,
    private readonly challenges: ChallengeStore,
    private readonly rp: RelyingParty,
  ) {}

  /** Options for `navigator.credentials.create()`; the user's passkeys are excluded, so one is not registered twice. */
  async registrationOptions(user: { id: string; email: string }): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.store.list(user.id);
    const options = await generateRegistrationOptions({
      rpName: this.rp.name,
      rpID: this.rp.id,
      userID: userHandle(user.id),
      userName: user.email,
      userDisplayName: user.email,
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map(descriptor),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    await this.challenges.issue('registration', user.id, options.challenge);
    return options;
  }

  /**
   * Verifies a registration response against a challenge issued to this user (taken, so it works once) and stores
   * the passkey: 400 `passkey.err.verification_failed` when it does not verify, 409 when the credential is known,
   * 422 past the limit.
   */
  async register(actor: PasskeyActor, name: string, response: RegistrationResponseJSON): Promise<Passkey> {
    let verified;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: (challenge) => this.challenges.take('registration', actor.userId, challenge),
        expectedOrigin: this.rp.origin,
        expectedRPID: this.rp.id,
        requireUserVerification: false,
        supportedAlgorithmIDs: ALGORITHMS,
      });
    } catch (e) {
      // The challenge store down is a 503, not the user's fault; anything the library refuses is the response's.
      if (isAppError(e)) throw e;
      throw passkeyVerificationFailed();
    }
    if (!verified.verified) throw passkeyVerificationFailed();
    const { credential } = verified.registrationInfo;
    const added = await this.store.add(
      actor,
      {
        credentialId: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: response.response.transports ?? credential.transports ?? [],
        name,
      },
      MAX_PASSKEYS_PER_USER,
    );
    if (added.outcome === 'limit_reached') throw passkeyLimitReached(MAX_PASSKEYS_PER_USER);
    if (added.outcome === 'already_registered') throw passkeyAlreadyRegistered();
    return added.passkey;
  }

  /**
   * Options for `navigator.credentials.get()` naming the user's passkeys, or null when they have none. The seam of
   * the `passkey` second factor: sign-in's second step and step-up hand these to the browser.
   */
  async authenticationOptions(userId: string): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
    const passkeys = await this.store.list(userId);
    if (passkeys.length === 0) return null;
    const options = await generateAuthenticationOptions({
      rpID: this.rp.id,
      allowCredentials: passkeys.map(descriptor),
      userVerification: 'preferred',
      timeout: CEREMONY_TIMEOUT_MS,
    });
    await this.challenges.issue('authentication', userId, options.challenge);
    return options;
  }

  /**
   * Whether `assertion` proves one of the user's passkeys, answering a challenge issued to this user by
   * `authenticationOptions` (taken, so an assertion works once). On success the passkey's counter and last use
   * move on; a counter that did not move forward (a cloned authenticator, or a race with another assertion) fails.
   */
  async verifyAssertion(userId: string, assertion: AuthenticationResponseJSON): Promise<boolean> {
    const passkey = await this.store.findByCredential(userId, assertion.id);
    if (!passkey) return false;
    let newCounter: number;
    try {
      const verified = await verifyAuthenticationResponse({
        response: assertion,
        expectedChallenge: (challenge) => this.challenges.take('authentication', userId, challenge),
        expectedOrigin: this.rp.origin,
        expectedRPID: this.rp.id,
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports,
        },
        requireUserVerification: false,
      });
      if (!verified.verified) return false;
      newCounter = verified.authenticationInfo.newCounter;
    } catch (e) {
      if (isAppError(e)) throw e;
      return false;
    }
    return this.store.recordUse(passkey.id, newCounter);
  }
}

/**
 * Passkeys as the `passkey` second factor of sign-in and step-up (domain/second-factor.ts): a user with a passkey is
 * enrolled, and a proof is an assertion answering options from `authenticationOptions` (fetched at
 * `POST /api/v1/auth/login/2fa/passkey-options` or `/step-up/passkey-options`). The body's schema already checked the
 * assertion's shape; it is checked again here, where it is used.
 */
export function passkeyVerifier(passkeys: Passkeys, store: { count(userId: string): Promise<number> }): SecondFactorVerifier {
  return {
    method: 'passkey',
    enrolled: async (userId) => (await store.count(userId)) > 0,
    verify: async (userId, proof) => {
      if (proof.method !== 'passkey') return false;
      const assertion = passkeyAssertion.safeParse(proof.assertion);
      return assertion.success && passkeys.verifyAssertion(userId, assertion.data);
    },
  };
}
