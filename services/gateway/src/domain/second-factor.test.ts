import { isAppError } from '@pl/errors';
import { builtInVerifiers, proofOf, SecondFactors, type SecondFactorVerifier, type TotpUse } from './second-factor';
import { totpCodeAt, totpStepOf, newTotpSecret, totpUri } from './totp';

/** A verifier that knows one right proof and counts its uses: the shape a passkeys module plugs in. */
const fakeVerifier = (method: SecondFactorVerifier['method'], enrolled: boolean, right: string): SecondFactorVerifier & { seen: string[] } => {
  const seen: string[] = [];
  return {
    method,
    seen,
    enrolled: async () => enrolled,
    verify: async (_userId, proof, context) => {
      seen.push(`${proof.method} ${context.purpose} ${context.challenge ?? '-'}`);
      return 'code' in proof && proof.code === right;
    },
  };
};

describe('SecondFactors', () => {
  it('lists the methods a user has on, in the order the verifiers were given', async () => {
    const factors = new SecondFactors([fakeVerifier('totp', true, '1'), fakeVerifier('recovery_code', false, '2')]);
    expect(await factors.methods('u-1')).toEqual(['totp']);
  });

  it('hands each proof to its method, with the sign-in challenge', async () => {
    const totp = fakeVerifier('totp', true, '123456');
    const factors = new SecondFactors([totp]);
    expect(await factors.verify('u-1', { method: 'totp', code: '123456' }, { purpose: 'sign_in', challenge: 'c-1' })).toBe(true);
    expect(await factors.verify('u-1', { method: 'totp', code: '654321' }, { purpose: 'step_up', challenge: null })).toBe(false);
    expect(totp.seen).toEqual(['totp sign_in c-1', 'totp step_up -']);
  });

  it('refuses a method no verifier serves as 400 naming its field (passkeys until their module lands)', async () => {
    const factors = new SecondFactors([fakeVerifier('totp', true, '1')]);
    const refused = await factors
      .verify('u-1', { method: 'passkey', assertion: {} }, { purpose: 'sign_in', challenge: 'c' })
      .catch((e: unknown) => e);
    expect(isAppError(refused) && refused.code).toBe('common.err.validation_failed');
    expect(isAppError(refused) && refused.details?.[0]?.field).toBe('passkey');
  });

  it('reads the one proof a body carries', () => {
    expect(proofOf({ code: '123456' })).toEqual({ method: 'totp', code: '123456' });
    expect(proofOf({ recovery_code: 'abcd' })).toEqual({ method: 'recovery_code', code: 'abcd' });
    expect(proofOf({ passkey: { id: 'x' } })).toEqual({ method: 'passkey', assertion: { id: 'x' } });
  });
});

describe('builtInVerifiers', () => {
  it('refuses a reused TOTP code like a wrong one, and says so, with whether the holder was mailed', async () => {
    const uses: TotpUse[] = [
      { outcome: 'accepted' },
      { outcome: 'reused', mailed: true },
      { outcome: 'wrong' },
      { outcome: 'reused', mailed: false },
    ];
    let next = 0;
    const reused: string[] = [];
    const [totp] = builtInVerifiers(
      {
        totpEnabled: async () => true,
        useTotp: async () => uses[next++] ?? { outcome: 'wrong' },
        recoveryCodesLeft: async () => 0,
        useRecoveryCode: async () => false,
      },
      (userId, mailed) => reused.push(`${userId} ${mailed ? 'mailed' : 'not mailed'}`),
    );
    const proof = { method: 'totp' as const, code: '123456' };
    const context = { purpose: 'step_up' as const, challenge: null };
    const results: (boolean | undefined)[] = [];
    for (const _ of uses) results.push(await totp?.verify('u-1', proof, context));
    expect(results).toEqual([true, false, false, false]);
    expect(reused).toEqual(['u-1 mailed', 'u-1 not mailed']);
  });
});

describe('TOTP', () => {
  const secret = newTotpSecret();
  const at = new Date('2026-11-29T10:00:10Z');
  const step = Math.floor(at.getTime() / 30_000);

  it('takes a code of this step and of the one either side, naming the step', () => {
    expect(totpStepOf(secret, totpCodeAt(secret, at), at)).toBe(step);
    expect(totpStepOf(secret, totpCodeAt(secret, new Date(at.getTime() - 30_000)), at)).toBe(step - 1);
    expect(totpStepOf(secret, totpCodeAt(secret, new Date(at.getTime() + 30_000)), at)).toBe(step + 1);
  });

  it('refuses a code two steps away', () => {
    expect(totpStepOf(secret, totpCodeAt(secret, new Date(at.getTime() - 60_000)), at)).toBeNull();
    expect(totpStepOf(secret, totpCodeAt(secret, new Date(at.getTime() + 60_000)), at)).toBeNull();
  });

  it('writes the URI an authenticator app reads: SHA1, 6 digits, 30 s, the issuer and the email', () => {
    const uri = new URL(totpUri(secret, 'owner@shop.example'));
    expect(uri.protocol).toBe('otpauth:');
    expect(Object.fromEntries(uri.searchParams)).toEqual({ issuer: 'Payment links', secret, algorithm: 'SHA1', digits: '6', period: '30' });
    expect(decodeURIComponent(uri.pathname)).toContain('owner@shop.example');
  });
});
