import { commonEnv, parseConfig } from '@pl/config';
import { heleketPayoutsFrom, providerCircuits, providerEnv, providersFrom } from './settings';

describe('providersFrom', () => {
  it('puts both live methods on the sandbox by default', () => {
    const registry = providersFrom(parseConfig(providerEnv, {}));
    expect(registry.forPayment('live', 'sbp')).toBe(registry.sandbox);
    expect(registry.forPayment('live', 'crypto')).toBe(registry.sandbox);
  });

  it('stops at start naming the variable when a chosen provider lacks a credential', () => {
    expect(() => providersFrom(parseConfig(providerEnv, { PAYMENT_PROVIDER_SBP: 'raiffeisen' }))).toThrow(
      'RAIFFEISEN_SBP_MERCHANT_ID is required when PAYMENT_PROVIDER_SBP=raiffeisen',
    );
    expect(() =>
      providersFrom(
        parseConfig(providerEnv, { PAYMENT_PROVIDER_SBP: 'raiffeisen', RAIFFEISEN_SBP_MERCHANT_ID: 'MA0000000001', RAIFFEISEN_SECRET_KEY: '  ' }),
      ),
    ).toThrow('RAIFFEISEN_SECRET_KEY is required');
    const heleket = { PAYMENT_PROVIDER_CRYPTO: 'heleket', HELEKET_MERCHANT_ID: 'm', HELEKET_PAYMENT_KEY: 'p' };
    expect(() => providersFrom(parseConfig(providerEnv, heleket), { publicBaseUrl: 'https://pay.example' })).toThrow(
      'HELEKET_PAYOUT_KEY is required when PAYMENT_PROVIDER_CRYPTO=heleket',
    );
    expect(() => providersFrom(parseConfig(providerEnv, { ...heleket, HELEKET_PAYOUT_KEY: 'k' }))).toThrow('PUBLIC_BASE_URL is required');
  });

  it('puts each chosen method on its real adapter, behind a circuit, and keeps test links on the sandbox', () => {
    const config = parseConfig(providerEnv, {
      PAYMENT_PROVIDER_SBP: 'raiffeisen',
      RAIFFEISEN_SBP_MERCHANT_ID: 'MA0000000001',
      RAIFFEISEN_SECRET_KEY: 'secret',
      PAYMENT_PROVIDER_CRYPTO: 'heleket',
      HELEKET_MERCHANT_ID: 'merchant',
      HELEKET_PAYMENT_KEY: 'payment',
      HELEKET_PAYOUT_KEY: 'payout',
      HELEKET_CALLBACK_IPS: '31.133.220.8, 10.0.0.0/8',
    });
    const registry = providersFrom(config, { publicBaseUrl: 'https://pay.example' });
    expect(registry.forPayment('live', 'sbp').name).toBe('raiffeisen_sbp');
    expect(registry.forPayment('live', 'crypto').name).toBe('heleket');
    expect(registry.forPayment('test', 'crypto')).toBe(registry.sandbox);
    expect((registry.forPayment('live', 'sbp') as unknown as { circuitState: string }).circuitState).toBe('closed');
    expect(config.HELEKET_CALLBACK_IPS).toEqual(['31.133.220.8', '10.0.0.0/8']);
    expect(config.RAIFFEISEN_SBP_API_URL).toBe('https://pay.raif.ru/api');
  });

  it('refuses a callback address list with an entry that is no address, at start', () => {
    const config = parseConfig(providerEnv, {
      PAYMENT_PROVIDER_SBP: 'raiffeisen',
      RAIFFEISEN_SBP_MERCHANT_ID: 'MA0000000001',
      RAIFFEISEN_SECRET_KEY: 'secret',
      RAIFFEISEN_CALLBACK_IPS: '193.28.44.23,not-an-ip',
    });
    expect(() => providersFrom(config)).toThrow('not-an-ip');
  });

  it('refuses an unknown provider and, in production, a live method on the sandbox unless a demo says so', () => {
    expect(() => parseConfig(providerEnv, { PAYMENT_PROVIDER_SBP: 'stripe' })).toThrow('PAYMENT_PROVIDER_SBP');
    const production = { NODE_ENV: 'production', PROVIDER_SANDBOX_SECRET: 'p'.repeat(40) };
    const shape = { ...providerEnv, NODE_ENV: commonEnv.NODE_ENV };
    expect(() => parseConfig(shape, production)).toThrow('PAYMENT_PROVIDER_SBP must name a real provider in production');
    expect(parseConfig(shape, { ...production, PROVIDER_SANDBOX_LIVE: 'true' }).PROVIDER_SANDBOX_LIVE).toBe(true);
  });

  it("shares Heleket's one circuit between its payment adapter and its payouts client when both take one providerCircuits", async () => {
    const config = parseConfig(providerEnv, {
      PAYMENT_PROVIDER_CRYPTO: 'heleket',
      // Nothing listens there: every call fails at once, as in an outage.
      HELEKET_API_URL: 'http://127.0.0.1:9',
      HELEKET_MERCHANT_ID: 'merchant',
      HELEKET_PAYMENT_KEY: 'payment',
      HELEKET_PAYOUT_KEY: 'payout',
      PROVIDER_BREAKER_FAILURES: '1',
    });
    const states: string[] = [];
    const circuitOf = providerCircuits(config, { circuit: (e) => void states.push(`${e.provider}:${e.state}`) });
    const crypto = providersFrom(config, { publicBaseUrl: 'https://pay.example', circuitOf }).forPayment('live', 'crypto');
    const payouts = heleketPayoutsFrom(config, circuitOf);
    await expect(crypto.getPayment({ gatewayPaymentId: 'u', orderId: 'o' }, { timeoutMs: 1000 })).rejects.toMatchObject({ why: 'network' });
    expect(states).toEqual(['heleket:open']);
    const request = {
      payoutId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
      amountKopecks: 10_000,
      network: 'USDT-TRC20' as const,
      address: 'TXguLRFtrAFrEDA17WuPfrxB84jVzJcNNV',
      callbackUrl: 'https://pay.example/callbacks/v1/heleket-payouts',
    };
    expect(await payouts.createPayout(request, { timeoutMs: 1000 })).toEqual({ outcome: 'unknown', why: 'circuit_open' });
  });

  it('stops at start naming the variable when crypto payouts lack a Heleket credential', () => {
    const config = parseConfig(providerEnv, { HELEKET_MERCHANT_ID: 'merchant' });
    expect(() => heleketPayoutsFrom(config, providerCircuits(config))).toThrow('HELEKET_PAYOUT_KEY is required when crypto payouts go to Heleket');
  });
});
