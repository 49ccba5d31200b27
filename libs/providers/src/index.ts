export * from './provider';
export * from './http';
export { errorReply } from './callback-reply';
export { callbackPathOf, ProviderRegistry, type LiveProviders } from './registry';
export { providerEnv, providersFrom, type ProviderConfig } from './settings';
export { hmacSha256Hex } from './sandbox/callback';
export { parseExchangeRates, type ExchangeRates } from './sandbox/exchange-rates';
export { SANDBOX_PROVIDER, SandboxProvider, type SandboxSettings } from './sandbox/sandbox.provider';
