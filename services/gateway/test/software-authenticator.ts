import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/** What a ceremony may be made to get wrong, to see the server refuse it. */
export interface Tampering {
  /** The origin the "browser" reports (another site's, say). */
  origin?: string;
  /** The RP id whose hash the authenticator signs over. */
  rpId?: string;
  /** The challenge answered, instead of the options'. */
  challenge?: string;
  /** The signature counter to report (an assertion's; by default one more than the last). */
  counter?: number;
  /** Sign with another key than the registered one. */
  foreignKey?: boolean;
}

const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array): string => Buffer.from(data).toString('base64url');
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

// Authenticator data flags (WebAuthn §6.1): user present, user verified, attested credential data included.
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

/**
 * A passkey authenticator in software, for component tests: a P-256 (ES256) key pair made with node:crypto, and the
 * registration ("none" attestation) and assertion responses a browser would hand the site, CBOR-encoded and signed
 * exactly as WebAuthn says, so the server verifies them with @simplewebauthn/server as it would a real device's.
 */
export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(32);
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  private counter = 0;

  /** `origin` is the site the "browser" is on: PUBLIC_BASE_URL's in the tests' gateways. */
  constructor(private readonly origin: string) {}

  get id(): string {
    return b64url(this.credentialId);
  }

  /** `navigator.credentials.create()` answering the options of `registration-options`. */
  register(options: { challenge: string }, t: Tampering = {}): RegistrationResponseJSON {
    const clientDataJSON = this.clientData('webauthn.create', t.challenge ?? options.challenge, t.origin);
    const authData = Buffer.concat([
      this.rpIdHash(t.rpId),
      Buffer.from([UP | UV | AT]),
      u32(this.counter),
      Buffer.alloc(16), // AAGUID: none, as a "none" attestation may say
      Buffer.from([this.credentialId.length >> 8, this.credentialId.length & 0xff]),
      this.credentialId,
      coseKey(this.keys.publicKey),
    ]);
    const attStmt = new Map<string, never>();
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, never> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', attStmt],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** `navigator.credentials.get()` answering authentication options; each assertion moves the counter on. */
  assert(options: { challenge: string }, t: Tampering = {}): AuthenticationResponseJSON {
    this.counter = t.counter ?? this.counter + 1;
    const clientDataJSON = this.clientData('webauthn.get', t.challenge ?? options.challenge, t.origin);
    const authenticatorData = Buffer.concat([this.rpIdHash(t.rpId), Buffer.from([UP | UV]), u32(this.counter)]);
    const key = t.foreignKey ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey : this.keys.privateKey;
    // ECDSA over authenticatorData || SHA-256(clientDataJSON), DER-encoded, as WebAuthn's ES256 signatures are.
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), key);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authenticatorData), signature: b64url(signature) },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  private rpIdHash(rpId?: string): Buffer {
    return sha256(rpId ?? new URL(this.origin).hostname);
  }

  private clientData(type: string, challenge: string, origin?: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: origin ?? this.origin, crossOrigin: false }));
  }
}

/** The public key as a COSE_Key (RFC 9053): EC2, ES256, P-256, with its x and y coordinates. */
function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  const coordinate = (c: string | undefined): Uint8Array => new Uint8Array(Buffer.from(c ?? '', 'base64url'));
  return Buffer.from(
    isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, coordinate(jwk.x)],
        [-3, coordinate(jwk.y)],
      ]),
    ),
  );
}
