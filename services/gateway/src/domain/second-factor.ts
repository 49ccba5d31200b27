import { invalidField } from '@pl/errors';
import type { SecondFactorMethod } from '@pl/contracts';

/** What a client sent as its second factor: exactly one field of `login/2fa` or `step-up`. */
export type SecondFactorProof =
  | { method: 'totp'; code: string }
  | { method: 'recovery_code'; code: string }
  /** A WebAuthn assertion, for the passkeys module to check. */
  | { method: 'passkey'; assertion: Record<string, unknown> };

/** Where a proof is checked: sign-in's second step carries its challenge (a passkey's assertion is bound to it). */
export interface ProofContext {
  purpose: 'sign_in' | 'step_up';
  /** The sign-in challenge; null for step-up. */
  challenge: string | null;
}

/**
 * One kind of second factor. This is the seam a new kind plugs into: the passkeys module adds a verifier for
 * `passkey` (and `enrolled` counts the user's passkeys), and sign-in, step-up and the `methods` list take it with no
 * other change. A verifier consumes what is single-use (a TOTP step, a recovery code) in the same atomic step that
 * accepts it, so two requests never both pass with one proof.
 */
export interface SecondFactorVerifier {
  readonly method: SecondFactorMethod;
  /** Whether the user can answer with this kind now (TOTP on, recovery codes left, a passkey registered). */
  enrolled(userId: string): Promise<boolean>;
  verify(userId: string, proof: SecondFactorProof, context: ProofContext): Promise<boolean>;
}

/** The body field each method's proof comes in: a method no verifier serves is refused naming it. */
const FIELD_OF: Record<SecondFactorMethod, string> = { totp: 'code', recovery_code: 'recovery_code', passkey: 'passkey' };

/** Every second-factor verifier the gateway has, by method. */
export class SecondFactors {
  private readonly byMethod: ReadonlyMap<SecondFactorMethod, SecondFactorVerifier>;

  constructor(verifiers: readonly SecondFactorVerifier[]) {
    this.byMethod = new Map(verifiers.map((v) => [v.method, v]));
  }

  /** The methods a user can answer sign-in's second step with, in the order sign-in lists them. */
  async methods(userId: string): Promise<SecondFactorMethod[]> {
    const all = [...this.byMethod.values()];
    const on = await Promise.all(all.map((v) => v.enrolled(userId)));
    return all.filter((_, i) => on[i]).map((v) => v.method);
  }

  /** A method no verifier serves (passkeys until their module lands) is 400 `common.err.validation_failed` naming its field. */
  assertAvailable(method: SecondFactorMethod): void {
    if (!this.byMethod.has(method)) throw invalidField(FIELD_OF[method], `${method} is not available as a second factor on this deployment`);
  }

  /**
   * Whether the proof is right for the user. A method this gateway has no verifier for (passkeys until their module
   * lands) is 400 `common.err.validation_failed` naming its field: the request, not the user, is wrong.
   */
  async verify(userId: string, proof: SecondFactorProof, context: ProofContext): Promise<boolean> {
    this.assertAvailable(proof.method);
    return (this.byMethod.get(proof.method) as SecondFactorVerifier).verify(userId, proof, context);
  }
}

/** The proof a `login/2fa` or `step-up` body carries (its schema lets exactly one through). */
export function proofOf(body: {
  code?: string | undefined;
  recovery_code?: string | undefined;
  passkey?: Record<string, unknown> | undefined;
}): SecondFactorProof {
  if (body.code !== undefined) return { method: 'totp', code: body.code };
  if (body.recovery_code !== undefined) return { method: 'recovery_code', code: body.recovery_code };
  return { method: 'passkey', assertion: body.passkey ?? {} };
}

/**
 * What became of a TOTP code: `accepted` (its step is now used), `wrong`, or `reused`: right, but of a step already
 * used; `mailed` says whether the holder's notice was queued with that finding (at most one an hour, docs/adr/0028).
 */
export type TotpUse = { outcome: 'accepted' } | { outcome: 'wrong' } | { outcome: 'reused'; mailed: boolean };

/** What the TOTP and recovery-code verifiers read and consume (the second-factor repository). */
export interface BuiltInFactorStore {
  totpEnabled(userId: string): Promise<boolean>;
  useTotp(userId: string, code: string, now: Date): Promise<TotpUse>;
  recoveryCodesLeft(userId: string): Promise<number>;
  useRecoveryCode(userId: string, code: string): Promise<boolean>;
}

/**
 * The second factors the gateway has of its own: TOTP, and recovery codes as its backup. `onReuse`: a right TOTP code
 * came again (refused like a wrong one): someone else may have seen it. ASVS 2.8.5 asks that it be logged (the
 * caller's part) and the holder told (the store's, which queued the mail with the finding; `mailed` says whether).
 */
export const builtInVerifiers = (
  store: BuiltInFactorStore,
  onReuse: (userId: string, mailed: boolean) => void,
  clock: () => Date = () => new Date(),
): SecondFactorVerifier[] => [
  {
    method: 'totp',
    enrolled: (userId) => store.totpEnabled(userId),
    verify: async (userId, proof) => {
      if (proof.method !== 'totp') return false;
      const use = await store.useTotp(userId, proof.code, clock());
      if (use.outcome === 'reused') onReuse(userId, use.mailed);
      return use.outcome === 'accepted';
    },
  },
  {
    method: 'recovery_code',
    enrolled: async (userId) => (await store.recoveryCodesLeft(userId)) > 0,
    verify: async (userId, proof) => proof.method === 'recovery_code' && store.useRecoveryCode(userId, proof.code),
  },
];
