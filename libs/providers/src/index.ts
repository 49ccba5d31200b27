export * from './provider';
export * from './http';
export * from './sender-allowlist';
export * from './breaker';
export { providerMetrics } from './provider-metrics';
export * from './raiffeisen-sbp';
export * from './crypto-value';
export * from './heleket';
export { errorReply } from './callback-reply';
export { callbackPathOf, ProviderRegistry, type LiveProviders } from './registry';
export {
  heleketPayoutsFrom,
  heleketPayoutsIfConfigured,
  providerCircuits,
  providerEnv,
  providersFrom,
  providersOf,
  type ProviderConfig,
  type ProvidersSource,
} from './settings';
export { hmacSha256Hex } from './sandbox/callback';
export { parseExchangeRates, type ExchangeRates } from './sandbox/exchange-rates';
export { SANDBOX_PROVIDER, SandboxProvider, type SandboxSettings } from './sandbox/sandbox.provider';
