/** Development-only secrets: defaults that make local runs work and that {@link unsafeProductionSettings} refuses. */
export const DEV_IDENTITY_SECRET = 'dev-only-identity-token-secret-change-me-0123456789';
export const DEV_PROVIDER_SANDBOX_SECRET = 'dev-only-sandbox-provider-secret-change-me-0123456789';
/** 32 bytes, base64. */
export const DEV_WEBHOOK_SECRET_KEY = Buffer.from('dev-only-webhook-secret-key-0000', 'utf8').toString('base64');
/** 32 bytes, base64: seals users' TOTP secrets in the gateway. */
export const DEV_TWO_FACTOR_SECRET_KEY = Buffer.from('dev-only-two-factor-secret-key00', 'utf8').toString('base64');

/** Every development default secret, by the variable that holds it. Anyone can read them in this repository. */
export const DEVELOPMENT_SECRETS: Readonly<Record<string, string>> = {
  IDENTITY_TOKEN_SECRET: DEV_IDENTITY_SECRET,
  PROVIDER_SANDBOX_SECRET: DEV_PROVIDER_SANDBOX_SECRET,
  WEBHOOK_SECRET_KEY: DEV_WEBHOOK_SECRET_KEY,
  TWO_FACTOR_SECRET_KEY: DEV_TWO_FACTOR_SECRET_KEY,
};

/**
 * The settings of a parsed configuration that a production process must not run with, each named with the
 * reason; empty outside `NODE_ENV=production`, and for settings the configuration does not read:
 * - an `http://` `PUBLIC_BASE_URL`: the session cookie would not be `Secure`, checkout pages go out in clear;
 * - `WEBHOOK_ALLOW_PRIVATE_TARGETS=true`: merchants could point webhooks into the platform's network (SSRF);
 * - a development default secret: published here, so anyone could sign identities, callbacks or open secrets;
 * - a live payment method left on the sandbox provider (`PAYMENT_PROVIDER_SBP`, `PAYMENT_PROVIDER_CRYPTO`): buyers
 *   would be shown payments no money can reach, unless `PROVIDER_SANDBOX_LIVE=true` says a demo deployment means it.
 */
export function unsafeProductionSettings(config: Readonly<Record<string, unknown>>): string[] {
  if (config.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  const base = config.PUBLIC_BASE_URL;
  if (typeof base === 'string' && !/^https:\/\//i.test(base)) problems.push('PUBLIC_BASE_URL must be an https URL in production');
  if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS === true) problems.push('WEBHOOK_ALLOW_PRIVATE_TARGETS must be false in production');
  for (const [name, devValue] of Object.entries(DEVELOPMENT_SECRETS)) {
    if (config[name] === devValue) problems.push(`${name} must be set in production (the development default is refused)`);
  }
  for (const name of LIVE_METHOD_PROVIDERS) {
    if (config[name] === 'sandbox' && config.PROVIDER_SANDBOX_LIVE !== true) {
      problems.push(`${name} must name a real provider in production (or PROVIDER_SANDBOX_LIVE=true for a demo deployment)`);
    }
  }
  return problems;
}

/** The settings that choose each live method's provider (docs/product-decisions.md, "Configuration"). */
const LIVE_METHOD_PROVIDERS = ['PAYMENT_PROVIDER_SBP', 'PAYMENT_PROVIDER_CRYPTO'] as const;
