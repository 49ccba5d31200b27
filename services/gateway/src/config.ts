import { z } from 'zod';
import proxyAddr from 'proxy-addr';
import {
  commonEnv,
  DEV_PROVIDER_SANDBOX_SECRET,
  DEV_TWO_FACTOR_SECRET_KEY,
  flag,
  intSetting,
  parseConfig,
  port,
  publicBaseUrl,
  secretBoxKey,
} from '@pl/config';
import { mailEnv } from '@pl/mail';
import { providerEnv } from '@pl/providers';
import {
  atLeast,
  DEFAULT_SCRYPT,
  LEGACY_SCRYPT,
  meetsOwaspMinimum,
  parseScryptSetting,
  scryptParamsProblem,
  type ScryptParams,
} from './domain/password-hash';

/** Development-only sandbox provider secret; refused when NODE_ENV=production (libs/config). */
export { DEV_PROVIDER_SANDBOX_SECRET };

/** A lifetime or window in seconds, up to 30 days. */
const positiveSeconds = (fallback: number) => intSetting({ min: 1, max: 30 * 24 * 3600, default: fallback });

const gatewayEnv = {
  ...commonEnv,
  GATEWAY_PORT: port(8080),
  /**
   * Lets several gateway processes of one host listen on GATEWAY_PORT, the kernel spreading connections among them
   * (SO_REUSEPORT): replicas on a VM without a balancer in front. Each pod of a Deployment has its own port anyway.
   */
  GATEWAY_REUSE_PORT: flag,
  OPS_PORT: port(9100),
  PUBLIC_BASE_URL: publicBaseUrl,
  REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key, so several systems (tests) can share one Redis. */
  REDIS_KEY_PREFIX: z
    .string()
    .max(64)
    .regex(/^[A-Za-z0-9_:.-]*$/)
    .default('pl:'),
  /** A dashboard session's absolute lifetime (12 h), however much it is used. */
  SESSION_TTL_SECONDS: positiveSeconds(43_200),
  /** A dashboard session ends after this long without a request (2 h); its clock moves at most once a minute. */
  SESSION_IDLE_SECONDS: positiveSeconds(7_200),
  IDEMPOTENCY_TTL_SECONDS: positiveSeconds(86_400),
  /** Request budgets, shared by all replicas through Redis. */
  /** A payout destination becomes `active` this many hours after it was added (0: at once; decimals allowed). */
  PAYOUT_DESTINATION_COOLDOWN_HOURS: z.coerce.number().min(0).max(8760).default(24),
  /**
   * How often each replica looks for daily report mails due (docs/adr/0049): from 07:00 Moscow, within this much.
   * 0 turns the replica's own runs off (tests that drive the job with their own clock).
   */
  DAILY_REPORT_MAIL_EVERY_MS: intSetting({ min: 0, max: 3_600_000, default: 300_000 }),
  RATE_LIMIT_API_KEY_PER_MINUTE: intSetting({ min: 1, default: 1200 }),
  RATE_LIMIT_CASHIER_PER_MINUTE: intSetting({ min: 1, default: 600 }),
  RATE_LIMIT_SESSION_PER_MINUTE: intSetting({ min: 1, default: 600 }),
  RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: intSetting({ min: 1, default: 20 }),
  /** `POST /p/{id}/select` per client IP: the buyer's checkout carries no credential to count. */
  RATE_LIMIT_SELECT_PER_IP_PER_MINUTE: intSetting({ min: 1, default: 600 }),
  /** Failed API-key authentications per client IP; beyond them, 429 until the minute is over. */
  RATE_LIMIT_AUTH_FAILURES_PER_IP_PER_MINUTE: intSetting({ min: 1, default: 30 }),
  /** Failed logins for one email within the window (docs/product-decisions.md: 10 in 15 minutes), then 429. */
  LOGIN_LOCKOUT_FAILURES: intSetting({ min: 1, default: 10 }),
  LOGIN_LOCKOUT_SECONDS: positiveSeconds(900),
  /** Failed second factors (sign-in's second step, step-up) for one user within the window, then 429 (the spec: 10 in 15 minutes). */
  TWO_FACTOR_LOCKOUT_FAILURES: intSetting({ min: 1, default: 10 }),
  TWO_FACTOR_LOCKOUT_SECONDS: positiveSeconds(900),
  /** Seals users' TOTP secrets at rest (32 bytes, base64); the development default is refused in production. */
  TWO_FACTOR_SECRET_KEY: secretBoxKey(DEV_TWO_FACTOR_SECRET_KEY),
  /** Sign-ups, password resets and confirmation resends per client IP and per email, each per hour; then 429. */
  RATE_LIMIT_ACCOUNT_MAIL_PER_IP_PER_HOUR: intSetting({ min: 1, default: 20 }),
  RATE_LIMIT_ACCOUNT_MAIL_PER_EMAIL_PER_HOUR: intSetting({ min: 1, default: 5 }),
  /**
   * scrypt's parameters for new password hashes, `N=…,r=…,p=…` (docs/adr/0039-password-hash-parameters.md); OWASP's
   * N=2^14, r=8, p=5 by default. Never weaker than the parameters hashes had before they were stored (N=2^14, r=8,
   * p=1), and in production never below OWASP's minimum; the tests' cheaper setting is refused there.
   */
  PASSWORD_SCRYPT: z
    .string()
    .default(`N=${DEFAULT_SCRYPT.N},r=${DEFAULT_SCRYPT.r},p=${DEFAULT_SCRYPT.p}`)
    .transform((text, ctx): ScryptParams => {
      const params = parseScryptSetting(text);
      const problem = params ? scryptParamsProblem(params) : 'expected N=<power of two>,r=<int>,p=<int>';
      if (params && problem === null && atLeast(params, LEGACY_SCRYPT)) return params;
      ctx.addIssue({ code: 'custom', message: problem ?? 'weaker than N=16384,r=8,p=1, the parameters of the oldest stored hashes' });
      return z.NEVER;
    }),
  /** Anyone may sign up (`POST /api/v1/auth/signup`) unless this is `false`; new accounts still need shops approved. */
  SIGNUP_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Proxy hops in front of the gateway whose X-Forwarded-For is trusted for the client IP (0: none). */
  TRUST_PROXY_HOPS: intSetting({ min: 0, max: 10, default: 0 }),
  /**
   * Proxies (addresses or CIDRs, comma-separated) whose `X-Forwarded-For` is believed when a provider callback's
   * sender is judged against the provider's allowed addresses. Apart from TRUST_PROXY_HOPS on purpose: a hop count
   * believes whoever is that many hops in front, while a callback's address is money's gatekeeper, so only named
   * proxies are believed. Empty: the connection's own address is the sender.
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((text, ctx): string[] => {
      const list = text
        .split(',')
        .map((a) => a.trim())
        .filter((a) => a.length > 0);
      try {
        proxyAddr.compile(list);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message : 'not a list of addresses or CIDRs' });
        return z.NEVER;
      }
      return list;
    }),
  ...providerEnv,
  /**
   * The deployments' one rule for private targets, read here for links' `return_url`: `true` (local runs, tests) also
   * takes an `http` return_url; refused in production (libs/config), where only https is taken.
   */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag,
  /** The mail the gateway's worker sends from the mail queue (SMTP_URL, MAIL_FROM; libs/mail). */
  ...mailEnv,
};

export type GatewayConfig = ReturnType<typeof loadConfig>;

/**
 * Reads and validates the gateway's environment once, at start. In production an http PUBLIC_BASE_URL and the
 * development secrets are refused (anyone who knows the sandbox secret could mark payments paid).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = parseConfig(gatewayEnv, env);
  if (config.NODE_ENV === 'production' && !meetsOwaspMinimum(config.PASSWORD_SCRYPT)) {
    throw new Error("Invalid configuration: PASSWORD_SCRYPT must meet OWASP's scrypt minimum in production (N=2^17,r=8,p=1 or N=2^14,r=8,p=5, …)");
  }
  return config;
}
