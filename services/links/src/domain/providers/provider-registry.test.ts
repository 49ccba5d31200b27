import { parseExchangeRates } from './exchange-rates';
import type { PaymentProvider } from './payment-provider';
import { ProviderRegistry } from './provider-registry';
import { SandboxProvider } from './sandbox.provider';

const sandbox = new SandboxProvider(parseExchangeRates('USDT=95,BTC=6500000,ETH=250000,TON=450'));
const provider = (name: string): PaymentProvider => ({
  name,
  createPayment: () => sandbox.createPayment({ linkId: name, method: 'sbp', network: null, payerAmountKopecks: 1 }),
  linkIdFor: () => null,
  createRefund: (request) => ({ gateway_refund_id: `${name}_${request.refundId}` }),
});

describe('ProviderRegistry', () => {
  it('sends test payments to the sandbox and live ones to the live provider', () => {
    const live = provider('realpay');
    const registry = new ProviderRegistry(live, sandbox);
    expect(registry.forMode('test')).toBe(sandbox);
    expect(registry.forMode('live')).toBe(live);
  });

  it('knows every provider by name, the sandbox once when it is the live provider too', () => {
    const old = provider('oldpay');
    const registry = new ProviderRegistry(provider('realpay'), sandbox, [old]);
    expect(registry.byName('sandbox')).toBe(sandbox);
    expect(registry.byName('oldpay')).toBe(old);
    expect(registry.byName('nopay')).toBeNull();
    expect(new ProviderRegistry(sandbox, sandbox).forMode('live')).toBe(sandbox);
  });

  it('refuses two providers of one name, which could settle each other’s payments', () => {
    expect(() => new ProviderRegistry(provider('sandbox'), sandbox)).toThrow('Two payment providers are named sandbox');
  });

  it('derives the payment id a callback names for a link with no selection', () => {
    const id = '3f1d2c4b-5a6e-4f70-8a9b-0c1d2e3f4a5b';
    expect(sandbox.paymentIdFor(id)).toBe(`sbx_${id}`);
    expect(sandbox.linkIdFor(sandbox.paymentIdFor(id))).toBe(id);
  });
});
