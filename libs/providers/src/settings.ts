import { z } from 'zod';
import { DEV_PROVIDER_SANDBOX_SECRET, flag, intSetting } from '@pl/config';
import { providerCircuit, withCircuitBreaker, type ProviderCircuit, type ProviderObserver } from './breaker';
import { heleketPayouts, heleketProvider, type HeleketPayouts } from './heleket';
import type { PaymentProvider, ProviderName } from './provider';
import { raiffeisenSbpProvider } from './raiffeisen-sbp';
import { ProviderRegistry } from './registry';
import { parseExchangeRates, type ExchangeRates } from './sandbox/exchange-rates';
import { SandboxProvider } from './sandbox/sandbox.provider';

/** A credential or id: unset and blank are alike (absent), surrounding spaces are a paste's, not the secret's. */
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? null : v.trim()));

const httpUrl = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((v) => /^https?:\/\/[^\s]+$/.test(v), 'must be an http(s) URL')
    .transform((v) => v.replace(/\/+$/, ''));

const addressList = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== ''),
  );

/**
 * The providers' settings (docs/product-decisions.md, "Configuration"), which links and the gateway both read under the
 * same names: links creates payments and refunds with them, the gateway verifies callbacks.
 */
export const providerEnv = {
  /** Who takes SBP payments of live links. */
  PAYMENT_PROVIDER_SBP: z.enum(['sandbox', 'raiffeisen']).default('sandbox'),
  /** Who takes crypto payments of live links. */
  PAYMENT_PROVIDER_CRYPTO: z.enum(['sandbox', 'heleket']).default('sandbox'),
  /** With NODE_ENV=production, a live method left on the sandbox is refused unless this says a demo means it (libs/config). */
  PROVIDER_SANDBOX_LIVE: flag,
  /** Deadline of one provider call. */
  PROVIDER_REQUEST_TIMEOUT_MS: intSetting({ min: 100, max: 120_000, default: 8000 }),
  /** Raiffeisen SBP (`PAYMENT_PROVIDER_SBP=raiffeisen`): the API's base URL, the platform's sbpMerchantId and secret key. */
  RAIFFEISEN_SBP_API_URL: httpUrl('https://pay.raif.ru/api'),
  RAIFFEISEN_SBP_MERCHANT_ID: optionalText,
  RAIFFEISEN_SECRET_KEY: optionalText,
  /** Heleket (`PAYMENT_PROVIDER_CRYPTO=heleket`): the API's base URL, the merchant id, the payment key and the payout key (refunds and crypto payouts). */
  HELEKET_API_URL: httpUrl('https://api.heleket.com'),
  HELEKET_MERCHANT_ID: optionalText,
  HELEKET_PAYMENT_KEY: optionalText,
  HELEKET_PAYOUT_KEY: optionalText,
  /** Addresses or CIDRs each provider's callbacks may come from (comma-separated); empty allows any. */
  RAIFFEISEN_CALLBACK_IPS: addressList,
  HELEKET_CALLBACK_IPS: addressList,
  /** Consecutive failures that open a live provider's circuit, and how long it stays open before one probe. */
  PROVIDER_BREAKER_FAILURES: intSetting({ min: 1, max: 1000, default: 5 }),
  PROVIDER_BREAKER_COOLDOWN_MS: intSetting({ min: 100, max: 3_600_000, default: 30_000 }),
  /** HMAC key the sandbox provider signs its callbacks with (`X-Provider-Signature`). */
  PROVIDER_SANDBOX_SECRET: z.string().min(32).default(DEV_PROVIDER_SANDBOX_SECRET),
  /** RUB per coin for the sandbox provider: `COIN=decimal` for every coin, comma-separated. */
  SANDBOX_RATES: z
    .string()
    .default('USDT=95.00,BTC=6500000.00,ETH=250000.00,TON=450.00')
    .transform((text, ctx): ExchangeRates => {
      try {
        return parseExchangeRates(text);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message : 'invalid rates' });
        return z.NEVER;
      }
    }),
};

export type ProviderConfig = z.output<z.ZodObject<typeof providerEnv>>;

/** What the live providers need beyond their own settings. */
export interface ProviderWiring {
  /** `PUBLIC_BASE_URL`: where Heleket is told to send its callbacks (`/callbacks/v1/heleket`). */
  readonly publicBaseUrl?: string;
  /** Calls and circuit changes of the live providers, for the service's metrics and logs. */
  readonly observer?: ProviderObserver;
  /**
   * Each provider's circuit ({@link providerCircuits}), when more than one client of a provider runs in the service
   * (Heleket's payments and payouts); without it each provider gets a circuit of its own here.
   */
  readonly circuitOf?: (provider: ProviderName) => ProviderCircuit;
}

/**
 * One circuit per provider for a service, made on first use: every client of a provider (Heleket's payment adapter and
 * its payouts client) shares it, so one outage opens one circuit and `provider_circuit_state{provider}` has one value.
 */
export function providerCircuits(config: ProviderConfig, observer?: ProviderObserver): (provider: ProviderName) => ProviderCircuit {
  const made = new Map<ProviderName, ProviderCircuit>();
  return (provider) => {
    let circuit = made.get(provider);
    if (circuit === undefined) {
      circuit = providerCircuit(provider, { failures: config.PROVIDER_BREAKER_FAILURES, cooldownMs: config.PROVIDER_BREAKER_COOLDOWN_MS, observer });
      made.set(provider, circuit);
    }
    return circuit;
  };
}

/** A chosen provider's credential: its absence stops the service at start, naming the variable and the choice. */
function required(value: string | null | undefined, variable: string, choice: string): string {
  if (!value) throw new Error(`Invalid configuration: ${variable} is required when ${choice}`);
  return value;
}

/** The live provider of a method that is not the sandbox, behind its own circuit breaker. */
function realProvider(config: ProviderConfig, choice: 'raiffeisen' | 'heleket', wiring: ProviderWiring): PaymentProvider {
  const provider =
    choice === 'raiffeisen'
      ? raiffeisenSbpProvider({
          apiUrl: config.RAIFFEISEN_SBP_API_URL,
          sbpMerchantId: required(config.RAIFFEISEN_SBP_MERCHANT_ID, 'RAIFFEISEN_SBP_MERCHANT_ID', 'PAYMENT_PROVIDER_SBP=raiffeisen'),
          secretKey: required(config.RAIFFEISEN_SECRET_KEY, 'RAIFFEISEN_SECRET_KEY', 'PAYMENT_PROVIDER_SBP=raiffeisen'),
          callbackIps: config.RAIFFEISEN_CALLBACK_IPS,
        })
      : heleketProvider({
          apiUrl: config.HELEKET_API_URL,
          merchantId: required(config.HELEKET_MERCHANT_ID, 'HELEKET_MERCHANT_ID', 'PAYMENT_PROVIDER_CRYPTO=heleket'),
          paymentKey: required(config.HELEKET_PAYMENT_KEY, 'HELEKET_PAYMENT_KEY', 'PAYMENT_PROVIDER_CRYPTO=heleket'),
          payoutKey: required(config.HELEKET_PAYOUT_KEY, 'HELEKET_PAYOUT_KEY', 'PAYMENT_PROVIDER_CRYPTO=heleket'),
          publicBaseUrl: required(wiring.publicBaseUrl, 'PUBLIC_BASE_URL', 'PAYMENT_PROVIDER_CRYPTO=heleket'),
          callbackIps: config.HELEKET_CALLBACK_IPS,
        });
  const circuitOf = wiring.circuitOf ?? providerCircuits(config, wiring.observer);
  return withCircuitBreaker(provider, { circuit: circuitOf(provider.name) });
}

/**
 * Heleket's payouts client of a configuration (crypto payouts, payouts.md), under the circuit `circuitOf` gives Heleket
 * (the one its payment adapter uses when both are made with the same `providerCircuits`). `HELEKET_MERCHANT_ID` and
 * `HELEKET_PAYOUT_KEY` are required: their absence throws here, naming the variable.
 */
export function heleketPayoutsFrom(config: ProviderConfig, circuitOf: (provider: ProviderName) => ProviderCircuit): HeleketPayouts {
  return heleketPayouts({
    apiUrl: config.HELEKET_API_URL,
    merchantId: required(config.HELEKET_MERCHANT_ID, 'HELEKET_MERCHANT_ID', 'crypto payouts go to Heleket'),
    payoutKey: required(config.HELEKET_PAYOUT_KEY, 'HELEKET_PAYOUT_KEY', 'crypto payouts go to Heleket'),
    callbackIps: config.HELEKET_CALLBACK_IPS,
    circuit: circuitOf('heleket'),
  });
}

/**
 * The registry of a configuration: the sandbox always (test links), and the live provider of each method (Raiffeisen
 * SBP, Heleket, or the sandbox). A missing credential of a chosen provider, or a malformed callback address list,
 * throws here, so the service stops at start with the variable named.
 */
export function providersFrom(config: ProviderConfig, wiring: ProviderWiring = {}): ProviderRegistry {
  const sandbox = new SandboxProvider({ rates: config.SANDBOX_RATES, callbackSecret: config.PROVIDER_SANDBOX_SECRET });
  return new ProviderRegistry(sandbox, {
    sbp: config.PAYMENT_PROVIDER_SBP === 'sandbox' ? sandbox : realProvider(config, config.PAYMENT_PROVIDER_SBP, wiring),
    crypto: config.PAYMENT_PROVIDER_CRYPTO === 'sandbox' ? sandbox : realProvider(config, config.PAYMENT_PROVIDER_CRYPTO, wiring),
  });
}

/**
 * What a service is started with: a registry built with the service's own observer (its metrics and logs, which
 * exist only once the service has made its registry) and its circuits (shared with its Heleket payouts client), or
 * one given whole (a test's provider that is down, say).
 */
export type ProvidersSource =
  ProviderRegistry | ((observer: ProviderObserver, circuitOf: (provider: ProviderName) => ProviderCircuit) => ProviderRegistry);

/** The registry of a source, handing a factory the service's observer and circuits. */
export const providersOf = (
  source: ProvidersSource,
  observer: ProviderObserver,
  circuitOf: (provider: ProviderName) => ProviderCircuit,
): ProviderRegistry => (typeof source === 'function' ? source(observer, circuitOf) : source);

/**
 * Heleket's payouts client when its payout credentials are configured (`HELEKET_MERCHANT_ID`, `HELEKET_PAYOUT_KEY`),
 * else null: live crypto payouts then wait `approved` and no payout webhook is taken.
 */
export const heleketPayoutsIfConfigured = (config: ProviderConfig, circuitOf: (provider: ProviderName) => ProviderCircuit): HeleketPayouts | null =>
  config.HELEKET_MERCHANT_ID !== null && config.HELEKET_PAYOUT_KEY !== null ? heleketPayoutsFrom(config, circuitOf) : null;
