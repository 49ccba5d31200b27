import { z } from 'zod';
import { intSetting } from './env';
import { DEV_IDENTITY_SECRET, unsafeProductionSettings } from './production-safety';

/** Settings every service reads. Defaults point at services on 127.0.0.1 with their standard ports. */
export const commonEnv = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: z.url().default('postgres://postgres@127.0.0.1:5432/payment_links'),
  /** Connections per process: replicas × this (+1 per LISTEN) must fit the server's max_connections. */
  DATABASE_POOL_MAX: intSetting({ min: 1, max: 100, default: 10 }),
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  /** Prefix of every NATS subject, so several systems can share one NATS (tests, tenants). */
  BUS_NAMESPACE: z
    .string()
    .regex(/^[a-zA-Z0-9_-]+$/)
    .default('pl'),
  IDENTITY_TOKEN_SECRET: z.string().min(32).default(DEV_IDENTITY_SECRET),
  NATS_REQUEST_TIMEOUT_MS: intSetting({ min: 100, max: 60_000, default: 5000 }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:9092'),
};

/**
 * Parses the environment once at start and fails fast, naming every bad variable, so a pod with a
 * broken configuration never starts serving. With `NODE_ENV=production` it also refuses the unsafe settings
 * of {@link unsafeProductionSettings} (development secrets, an http base URL, private webhook targets), so
 * every service and the admin CLI apply the same rule to whichever of them they read.
 */
export function parseConfig<S extends z.ZodRawShape>(shape: S, env: NodeJS.ProcessEnv = process.env): z.output<z.ZodObject<S>> {
  const result = z.object(shape).safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const unsafe = unsafeProductionSettings(result.data);
  if (unsafe.length > 0) throw new Error(`Invalid configuration: ${unsafe.join('; ')}`);
  return result.data;
}

/** What a started service hands back to whoever started it (main.ts, tests, the local runner). */
export interface RunningService {
  /** Port of the ops server (/healthz, /readyz). */
  opsPort: number;
  /** Stops taking work, finishes what is in flight, closes connections. */
  stop(): Promise<void>;
}
export { flag, intSetting, kafkaTopic, port, roublesSetting } from './env';
export { CRASH_POINT_ENV, crashPointsFromEnv } from './crash-point';
export {
  DEV_IDENTITY_SECRET,
  DEV_PROVIDER_SANDBOX_SECRET,
  DEV_WEBHOOK_SECRET_KEY,
  DEV_TWO_FACTOR_SECRET_KEY,
  DEVELOPMENT_SECRETS,
  unsafeProductionSettings,
} from './production-safety';
export { SecretBox, secretBoxKey } from './secret-box';
export { PUBLIC_BASE_URL_MAX, publicBaseUrl } from './public-base-url';
