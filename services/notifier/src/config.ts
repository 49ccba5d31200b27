import { z } from 'zod';
import { commonEnv, opsPort, parseConfig } from '@pl/config';

/** Delays before attempts 2..8 (the first attempt goes out at once): 10 s, 1 min, 10 min, 1 h, 6 h, 24 h, 40 h. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS = [10_000, 60_000, 600_000, 3_600_000, 21_600_000, 86_400_000, 144_000_000];

const WEBHOOK_ATTEMPTS = 8;

const retryDelays = z
  .string()
  .default(DEFAULT_WEBHOOK_RETRY_DELAYS_MS.join(','))
  .transform((raw, ctx) => {
    const parts = raw.split(',').map((p) => p.trim());
    const delays = parts.map(Number);
    if (parts.length !== WEBHOOK_ATTEMPTS - 1 || parts.some((p) => !/^\d+$/.test(p)) || delays.some((d) => !Number.isSafeInteger(d))) {
      ctx.addIssue({ code: 'custom', message: `must be ${WEBHOOK_ATTEMPTS - 1} comma-separated non-negative integers (milliseconds)` });
      return z.NEVER;
    }
    return delays;
  });

const flag = z
  .enum(['true', 'false'])
  .default('false')
  .transform((v) => v === 'true');

const notifierEnv = {
  ...commonEnv,
  OPS_PORT: opsPort(9103),
  WEBHOOK_RETRY_DELAYS_MS: retryDelays,
  /** Per-attempt time-out of a webhook request. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Local runs and tests deliver to 127.0.0.1; deployments refuse private, loopback and link-local targets. */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag,
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  return parseConfig(notifierEnv, env);
}

export type NotifierConfig = ReturnType<typeof loadConfig>;
