import type { PaymentProvider, ProviderName } from './provider';
import { ProviderRegistry } from './registry';
import { parseExchangeRates } from './sandbox/exchange-rates';
import { SandboxProvider } from './sandbox/sandbox.provider';

const sandbox = new SandboxProvider({ rates: parseExchangeRates('USDT=95,BTC=6500000,ETH=250000,TON=450'), callbackSecret: 's'.repeat(32) });
/** A stand-in of a real provider: only its name matters to the registry. */
const provider = (name: ProviderName): PaymentProvider => {
  const standIn = new SandboxProvider({ rates: parseExchangeRates('USDT=95,BTC=6500000,ETH=250000,TON=450'), callbackSecret: 's'.repeat(32) });
  Object.defineProperty(standIn, 'name', { value: name });
  return standIn;
};

describe('ProviderRegistry', () => {
  it('sends test payments to the sandbox and live ones to the live provider of the method', () => {
    const raiffeisen = provider('raiffeisen_sbp');
    const registry = new ProviderRegistry(sandbox, { sbp: raiffeisen, crypto: sandbox });
    expect(registry.forPayment('test', 'sbp')).toBe(sandbox);
    expect(registry.forPayment('live', 'sbp')).toBe(raiffeisen);
    expect(registry.forPayment('live', 'crypto')).toBe(sandbox);
  });

  it('knows every provider by name and by callback path; prototype names find nothing', () => {
    const raiffeisen = provider('raiffeisen_sbp');
    const registry = new ProviderRegistry(sandbox, { sbp: raiffeisen, crypto: sandbox });
    expect(registry.byName('raiffeisen_sbp')).toBe(raiffeisen);
    expect(registry.byCallbackPath('raiffeisen-sbp')).toBe(raiffeisen);
    expect(registry.byCallbackPath('sandbox')).toBe(sandbox);
    for (const name of ['heleket', 'raiffeisen_sbp', 'Sandbox', '__proto__', 'constructor', 'toString'])
      expect(registry.byCallbackPath(name)).toBeNull();
    expect(registry.byName('heleket')).toBeNull();
  });

  it('refuses two providers of one name, which could settle each other’s payments', () => {
    expect(() => new ProviderRegistry(sandbox, { sbp: provider('sandbox'), crypto: sandbox })).toThrow('Two payment providers are named sandbox');
  });

  it('derives the payment id a callback names for a link with no selection', () => {
    const id = '3f1d2c4b-5a6e-4f70-8a9b-0c1d2e3f4a5b';
    expect(sandbox.paymentIdFor(id)).toBe(`sbx_${id}`);
    expect(sandbox.linkIdFor(sandbox.paymentIdFor(id))).toBe(id);
    expect(sandbox.linkIdFor(`sbx_${id.toUpperCase()}`)).toBeNull();
    expect(sandbox.linkIdFor(id)).toBeNull();
  });
});
