import { z } from 'zod';
import { commonEnv, opsPort, parseConfig } from '@pl/config';

const positiveSeconds = (fallback: number) => z.coerce.number().int().min(1).max(30 * 24 * 3600).default(fallback);

const gatewayEnv = {
  ...commonEnv,
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  OPS_PORT: opsPort(9100),
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL')
    .default('http://localhost:8080'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key, so several systems (tests) can share one Redis. */
  REDIS_KEY_PREFIX: z.string().max(64).regex(/^[A-Za-z0-9_:.-]*$/).default('pl:'),
  SESSION_TTL_SECONDS: positiveSeconds(43_200),
  IDEMPOTENCY_TTL_SECONDS: positiveSeconds(86_400),
};

export type GatewayConfig = ReturnType<typeof loadConfig>;

/** Reads and validates the gateway's environment once, at start. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  return parseConfig(gatewayEnv, env);
}
