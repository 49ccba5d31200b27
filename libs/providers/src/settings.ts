import { z } from 'zod';
import { DEV_PROVIDER_SANDBOX_SECRET, flag, intSetting } from '@pl/config';
import type { PaymentProvider } from './provider';
import { ProviderRegistry } from './registry';
import { parseExchangeRates, type ExchangeRates } from './sandbox/exchange-rates';
import { SandboxProvider } from './sandbox/sandbox.provider';

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

/**
 * THE PLACE WHERE THE REAL PROVIDERS PLUG IN. The Raiffeisen SBP adapter (`raiffeisenSbpProvider(...)`, in
 * `raiffeisen-sbp/`) and the Heleket one (`heleketProvider(...)`, in `heleket/`) are not in this build yet: until
 * they are, choosing them stops the service at start, naming the variable, rather than taking payments nobody can
 * make. Each factory reads its own settings (`RAIFFEISEN_*`, `HELEKET_*`) from the same configuration.
 */
function realProvider(variable: string, choice: 'raiffeisen' | 'heleket'): PaymentProvider {
  throw new Error(`Invalid configuration: ${variable}=${choice}: the ${choice} adapter is not part of this build`);
}

/** The registry of a configuration: the sandbox always (test links), and the live provider of each method. */
export function providersFrom(config: ProviderConfig): ProviderRegistry {
  const sandbox = new SandboxProvider({ rates: config.SANDBOX_RATES, callbackSecret: config.PROVIDER_SANDBOX_SECRET });
  return new ProviderRegistry(sandbox, {
    sbp: config.PAYMENT_PROVIDER_SBP === 'sandbox' ? sandbox : realProvider('PAYMENT_PROVIDER_SBP', config.PAYMENT_PROVIDER_SBP),
    crypto: config.PAYMENT_PROVIDER_CRYPTO === 'sandbox' ? sandbox : realProvider('PAYMENT_PROVIDER_CRYPTO', config.PAYMENT_PROVIDER_CRYPTO),
  });
}
