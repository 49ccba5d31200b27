import type { MerchantIdentity } from '@pl/contracts';
import { IdentityTokens } from './identity-tokens';

const SECRET = 'identity-tokens-unit-test-secret-0123456789';
const merchant: MerchantIdentity = {
  kind: 'merchant',
  merchant_id: '7d3c1c52-5a8e-4a53-9b7e-2f1a3c4d5e6f',
  auth: 'api_key',
  mode: 'live',
  email_confirmed: true,
};

describe('IdentityTokens', () => {
  let clock = 0;
  const now = (): number => clock;
  beforeEach(() => {
    clock = Date.UTC(2026, 10, 22, 12, 0, 0);
  });

  it('reuses a signed token for the first half of its lifetime, then signs a new one', () => {
    const tokens = new IdentityTokens(SECRET, 30, now);
    const first = tokens.sign(merchant);
    clock += 14_999;
    expect(tokens.sign({ ...merchant })).toBe(first);
    expect(tokens.sign({ ...merchant, email_confirmed: false })).not.toBe(first);
    expect(tokens.sign({ ...merchant, mode: 'test' })).not.toBe(first);
    clock += 1_000;
    expect(tokens.sign(merchant)).not.toBe(first);
  });

  it('accepts a token until its expiry and refuses it after, also when it verified before', () => {
    const signer = new IdentityTokens(SECRET, 30, now);
    const verifier = new IdentityTokens(SECRET, 30, now);
    const token = signer.sign(merchant);
    expect(verifier.verify(token)).toEqual(merchant);
    clock += 29_000;
    expect(verifier.verify(token)).toEqual(merchant);
    clock += 1_000;
    expect(() => verifier.verify(token)).toThrow(/Invalid or expired/);
  });

  it('carries the mode: a test identity verifies as test, never as the live one', () => {
    const signer = new IdentityTokens(SECRET, 30, now);
    const verifier = new IdentityTokens(SECRET, 30, now);
    const test: MerchantIdentity = { ...merchant, mode: 'test' };
    expect(verifier.verify(signer.sign(test))).toEqual(test);
    expect(verifier.verify(signer.sign(merchant))).toEqual(merchant);
  });

  it('refuses a token whose identity has no mode (signed before test mode)', () => {
    const signer = new IdentityTokens(SECRET, 30, now);
    const { mode: _mode, ...modeless } = merchant;
    const token = signer.sign(modeless as MerchantIdentity);
    expect(() => new IdentityTokens(SECRET, 30, now).verify(token)).toThrow(/no valid identity/);
  });

  it('refuses a tampered or foreign token even while the genuine one is remembered', () => {
    const signer = new IdentityTokens(SECRET, 30, now);
    const verifier = new IdentityTokens(SECRET, 30, now);
    const token = signer.sign(merchant);
    verifier.verify(token);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, merchant_id: '00000000-0000-4000-8000-000000000000' })).toString('base64url');
    expect(() => verifier.verify(`${header}.${forged}.${signature}`)).toThrow(/Invalid or expired/);
    expect(() => verifier.verify(`${token}x`)).toThrow(/Invalid or expired/);
    const foreign = new IdentityTokens('another-identity-secret-of-enough-length-0123', 30, now).sign(merchant);
    expect(() => verifier.verify(foreign)).toThrow(/Invalid or expired/);
  });
});
