import { createHmac, timingSafeEqual } from 'node:crypto';

/** Reads one request header by name (case-insensitive), as the HTTP adapter provides it. */
type HeaderReader = (name: string) => string | undefined;

/**
 * What the gateway needs of a payment provider to accept its callbacks: the name used in
 * `/callbacks/v1/{provider}` and in `links.settle`, and a check that the raw body came from it.
 */
export interface CallbackVerifier {
  readonly name: string;
  /** True only when the signature covers exactly these bytes; never throws on a malformed header. */
  verify(rawBody: Buffer, header: HeaderReader): boolean;
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** hex(HMAC-SHA256(raw body, secret)), the form the sandbox provider signs with. */
export const hmacSha256Hex = (secret: string, rawBody: Buffer): string => createHmac('sha256', secret).update(rawBody).digest('hex');

/**
 * Compares a hex signature with the expected HMAC in constant time. The shape check comes first so
 * timingSafeEqual always sees buffers of equal length (a length mismatch would throw).
 */
export function hexSignatureMatches(secret: string, rawBody: Buffer, signature: string | undefined): boolean {
  if (signature === undefined || !HEX_SHA256.test(signature.trim())) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature.trim(), 'hex'));
}

/** The sandbox provider shipped with the project: `X-Provider-Signature: hex(HMAC-SHA256(body, secret))`. */
export function sandboxVerifier(secret: string): CallbackVerifier {
  return {
    name: 'sandbox',
    verify: (rawBody, header) => hexSignatureMatches(secret, rawBody, header('x-provider-signature')),
  };
}

/** The providers whose callbacks the gateway accepts, by the name in the callback path. */
export class CallbackVerifiers {
  private readonly byName: ReadonlyMap<string, CallbackVerifier>;

  constructor(verifiers: readonly CallbackVerifier[]) {
    // A Map, not an object: a path segment like `__proto__` or `constructor` must name nothing.
    this.byName = new Map(verifiers.map((v) => [v.name, v]));
  }

  find(name: string): CallbackVerifier | undefined {
    return this.byName.get(name);
  }
}

/** The verifiers this deployment knows, from its configuration. */
export const callbackVerifiersFrom = (config: { PROVIDER_SANDBOX_SECRET: string }): CallbackVerifiers =>
  new CallbackVerifiers([sandboxVerifier(config.PROVIDER_SANDBOX_SECRET)]);
