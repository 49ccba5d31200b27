import { commonEnv, DEV_WEBHOOK_SECRET_KEY, flag, intSetting, parseConfig, port, roublesSetting, secretBoxKey } from '@pl/config';

/** Development-only webhook-secret key (32 bytes, base64); refused when NODE_ENV=production (libs/config). */
export { DEV_WEBHOOK_SECRET_KEY };

/**
 * Settings for reading and writing shop records, shared with the admin CLI: both must seal webhook
 * secrets with the same key and apply the same webhook-target rule.
 */
export const shopStorageEnv = {
  WEBHOOK_SECRET_KEY: secretBoxKey(DEV_WEBHOOK_SECRET_KEY),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag,
};

/** The platform's rates (basis points) a shop a merchant creates starts with, until an operator sets others. */
const shopDefaultRatesEnv = {
  SHOP_DEFAULT_CRYPTO_BPS: intSetting({ min: 0, max: 10_000, default: 100 }),
  SHOP_DEFAULT_SBP_BPS: intSetting({ min: 0, max: 10_000, default: 100 }),
};

/** The largest payout (links reads the same PAYOUT_MAX): a payout schedule's `minimum` may not pass it. */
const payoutScheduleEnv = {
  PAYOUT_MAX: roublesSetting('1000000.00'),
};

/** Reads the environment once; in production the development key and private webhook targets are refused. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  return parseConfig({ ...commonEnv, OPS_PORT: port(9102), ...shopStorageEnv, ...shopDefaultRatesEnv, ...payoutScheduleEnv }, env);
}

export type ShopsConfig = ReturnType<typeof loadConfig>;
