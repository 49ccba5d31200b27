import { invalidCode, invalidToken, twoFactorRequired } from '@pl/errors';
import type { SecondFactorMethod } from '@pl/contracts';
import type { SecondFactorProof, SecondFactors } from './second-factor';

/** The sign-in challenges between the password and the second factor (5 minutes, 5 tries, used once). */
export interface ChallengePort {
  create(pending: { userId: string; merchantId: string; epoch: number }): Promise<string>;
  try(challenge: string): Promise<{ userId: string; merchantId: string; epoch: number } | null>;
  use(challenge: string): Promise<boolean>;
}

/** Failed second factors per user: a try takes a point first, a success gives it back (as the password lockout). */
export interface SecondFactorLimiter<D extends { allowed: boolean }> {
  attempt(userId: string): Promise<D>;
  succeeded(userId: string): Promise<void>;
}

export interface SecondFactorPorts<D extends { allowed: boolean }> {
  factors: SecondFactors;
  limiter: SecondFactorLimiter<D>;
}

/** A verified second factor, or the per-user limiter's refusal (the caller says when to retry). */
export type VerifyResult<D> = { outcome: 'verified' } | { outcome: 'locked_out'; decision: D };

/**
 * Checks one second factor of a user under the per-user budget: 10 failures in 15 minutes and every further try is
 * refused (429) for the rest of the window, right or wrong. A wrong or used proof is 400 `auth.err.invalid_code`.
 */
export async function verifySecondFactor<D extends { allowed: boolean }>(
  ports: SecondFactorPorts<D>,
  userId: string,
  proof: SecondFactorProof,
  challenge: string | null,
): Promise<VerifyResult<D>> {
  const decision = await ports.limiter.attempt(userId);
  if (!decision.allowed) return { outcome: 'locked_out', decision };
  const ok = await ports.factors.verify(userId, proof, { purpose: challenge === null ? 'step_up' : 'sign_in', challenge });
  if (!ok) throw invalidCode();
  await ports.limiter.succeeded(userId);
  return { outcome: 'verified' };
}

/** After the password: a challenge for the second step when the user has a second factor, else null (signed in). */
export async function secondStepOf(
  ports: { factors: SecondFactors; challenges: ChallengePort },
  pending: { userId: string; merchantId: string; epoch: number },
): Promise<{ challenge: string; methods: SecondFactorMethod[] } | null> {
  const methods = await ports.factors.methods(pending.userId);
  if (methods.length === 0) return null;
  return { challenge: await ports.challenges.create(pending), methods };
}

/**
 * Sign-in's second step: the challenge takes a try (an unknown, expired, used or exhausted one is 400
 * `auth.err.invalid_token`), the proof is checked under the user's budget, and the challenge is used once. The
 * caller opens the session.
 */
export async function completeSecondStep<D extends { allowed: boolean }>(
  ports: SecondFactorPorts<D> & { challenges: ChallengePort },
  challenge: string,
  proof: SecondFactorProof,
): Promise<{ outcome: 'signed_in'; pending: { userId: string; merchantId: string; epoch: number } } | { outcome: 'locked_out'; decision: D }> {
  ports.factors.assertAvailable(proof.method);
  const pending = await ports.challenges.try(challenge);
  if (!pending) throw invalidToken('The sign-in challenge is unknown, expired, used or out of tries: sign in again');
  const verified = await verifySecondFactor(ports, pending.userId, proof, challenge);
  if (verified.outcome === 'locked_out') return verified;
  if (!(await ports.challenges.use(challenge))) throw invalidToken('The sign-in challenge was already used: sign in again');
  return { outcome: 'signed_in', pending };
}

/** Step-up: a second factor verified now; a user with none is 403 `auth.err.two_factor_required`. */
export async function stepUp<D extends { allowed: boolean }>(
  ports: SecondFactorPorts<D>,
  userId: string,
  proof: SecondFactorProof,
): Promise<VerifyResult<D>> {
  ports.factors.assertAvailable(proof.method);
  if ((await ports.factors.methods(userId)).length === 0) throw twoFactorRequired('The user has no second factor to verify: enroll one first');
  return verifySecondFactor(ports, userId, proof, null);
}
