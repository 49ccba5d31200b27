import { commonEnv, parseConfig } from '@pl/config';
import { providerEnv, providersFrom } from './settings';

describe('providersFrom', () => {
  it('puts both live methods on the sandbox by default', () => {
    const registry = providersFrom(parseConfig(providerEnv, {}));
    expect(registry.forPayment('live', 'sbp')).toBe(registry.sandbox);
    expect(registry.forPayment('live', 'crypto')).toBe(registry.sandbox);
  });

  it('stops at start, naming the variable, when a real provider is chosen that this build lacks', () => {
    expect(() => providersFrom(parseConfig(providerEnv, { PAYMENT_PROVIDER_SBP: 'raiffeisen' }))).toThrow('PAYMENT_PROVIDER_SBP=raiffeisen');
    expect(() => providersFrom(parseConfig(providerEnv, { PAYMENT_PROVIDER_CRYPTO: 'heleket' }))).toThrow('PAYMENT_PROVIDER_CRYPTO=heleket');
  });

  it('refuses an unknown provider and, in production, a live method on the sandbox unless a demo says so', () => {
    expect(() => parseConfig(providerEnv, { PAYMENT_PROVIDER_SBP: 'stripe' })).toThrow('PAYMENT_PROVIDER_SBP');
    const production = { NODE_ENV: 'production', PROVIDER_SANDBOX_SECRET: 'p'.repeat(40) };
    const shape = { ...providerEnv, NODE_ENV: commonEnv.NODE_ENV };
    expect(() => parseConfig(shape, production)).toThrow('PAYMENT_PROVIDER_SBP must name a real provider in production');
    expect(parseConfig(shape, { ...production, PROVIDER_SANDBOX_LIVE: 'true' }).PROVIDER_SANDBOX_LIVE).toBe(true);
  });
});
