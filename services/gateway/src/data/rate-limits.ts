import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import { BudgetLeases, type Grant } from './budget-leases';
import { redisCall, type Redis } from './redis';

/** Budgets counted per caller: credentials after authentication, client IPs before it. */
export type LimitedCaller = 'api_key' | 'cashier' | 'session' | 'login_ip' | 'select_ip';

export interface RateLimitSettings {
  apiKeyPerMinute: number;
  cashierPerMinute: number;
  sessionPerMinute: number;
  loginPerIpPerMinute: number;
  selectPerIpPerMinute: number;
  authFailuresPerIpPerMinute: number;
  loginLockoutFailures: number;
  loginLockoutSeconds: number;
  /** Failed second factors of one user (sign-in's second step, step-up) in the window, then 429 until it ends. */
  twoFactorLockoutFailures: number;
  twoFactorLockoutSeconds: number;
  /** Sign-ups, password resets and confirmation resends (each counted apart) per client IP, per hour. */
  accountMailPerIpPerHour: number;
  /** The same per email address, per hour. */
  accountMailPerEmailPerHour: number;
}

/** The routes that mail someone on an anonymous (or barely authenticated) request: each has its own budgets. */
export type MailingAction = 'signup' | 'password_reset' | 'confirm_resend';

/** What a limiter decided, in the terms of the `RateLimit-*` headers. */
export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (or the lockout ends). */
  resetSeconds: number;
}

const toDecision = (limit: number, grant: Grant): LimitDecision => ({
  allowed: grant.allowed,
  limit,
  remaining: Math.max(0, grant.remaining),
  resetSeconds: Math.max(1, Math.ceil(grant.msBeforeNext / 1000)),
});

const grantOf = (res: RateLimiterRes, allowed: boolean): Grant => ({ allowed, remaining: res.remainingPoints, msBeforeNext: res.msBeforeNext });

/**
 * Takes `n` points with one atomic operation (rate-limiter-flexible's INCRBY script); a spent budget is an
 * answer, any other failure throws.
 */
const takeFrom =
  (limiter: RateLimiterRedis) =>
  async (key: string, n: number): Promise<Grant> => {
    try {
      return grantOf(await limiter.consume(key, n), true);
    } catch (e) {
      if (e instanceof RateLimiterRes) return grantOf(e, false);
      throw e;
    }
  };

/** The per-process stand-in for Redis while it is down; says so in the log (once per 10 s). */
class PerProcessFallback extends RateLimiterMemory {
  constructor(
    opts: { points: number; duration: number; keyPrefix: string },
    private readonly onUse: () => void,
  ) {
    super(opts);
  }

  override consume(key: string | number, points?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
    this.onUse();
    return super.consume(key, points, options);
  }
}

/**
 * Request budgets per credential and per client IP, counted in Redis so every gateway replica shares
 * them. Every count is one atomic Redis operation (rate-limiter-flexible's Redis limiter), never a read
 * then a write, so parallel requests cannot slip past a budget. Large budgets are taken from Redis in
 * small leases ({@link BudgetLeases}) so a busy key does not cost a Redis round trip per request.
 *
 * When Redis fails, every budget is counted by this process alone (the library's `insuranceLimiter`, in
 * memory) rather than skipped, so API-key and cashier routes, which need no Redis, keep serving and stay
 * limited. The one exception is the per-email sign-in lockout: a per-process count would give each replica
 * its own ten guesses, and signing in needs Redis for the session anyway, so it answers 503.
 */
export class RateLimits {
  private readonly limiters: Record<LimitedCaller, { budget: BudgetLeases; points: number }>;
  private readonly authFailures: RateLimiterRedis;
  private readonly loginFailures: RateLimiterRedis;
  private readonly secondFactorFailures: RateLimiterRedis;
  private readonly mailByIp: RateLimiterRedis;
  private readonly mailByEmail: RateLimiterRedis;
  private lastWarnAt = 0;

  constructor(
    redis: Redis,
    keyPrefix: string,
    private readonly settings: RateLimitSettings,
    private readonly log: Logger,
  ) {
    const limiter = (name: string, points: number, duration: number, insured: boolean) =>
      new RateLimiterRedis({
        storeClient: redis,
        useRedisPackage: true,
        keyPrefix: `${keyPrefix}rl:${name}`,
        points,
        duration,
        // A disconnected client answers at once (to the fallback) instead of waiting for its command time-out.
        rejectIfRedisNotReady: true,
        ...(insured && { insuranceLimiter: new PerProcessFallback({ points, duration, keyPrefix: name }, () => this.warn()) }),
      });
    const perMinute = (name: LimitedCaller, points: number) => ({
      points,
      budget: new BudgetLeases(points, takeFrom(limiter(name, points, 60, true))),
    });
    this.limiters = {
      api_key: perMinute('api_key', settings.apiKeyPerMinute),
      cashier: perMinute('cashier', settings.cashierPerMinute),
      session: perMinute('session', settings.sessionPerMinute),
      login_ip: perMinute('login_ip', settings.loginPerIpPerMinute),
      select_ip: perMinute('select_ip', settings.selectPerIpPerMinute),
    };
    this.authFailures = limiter('auth_fail_ip', settings.authFailuresPerIpPerMinute, 60, true);
    this.loginFailures = limiter('login_fail', settings.loginLockoutFailures, settings.loginLockoutSeconds, false);
    this.secondFactorFailures = limiter('2fa_fail', settings.twoFactorLockoutFailures, settings.twoFactorLockoutSeconds, false);
    this.mailByIp = limiter('mail_ip', settings.accountMailPerIpPerHour, 3600, true);
    this.mailByEmail = limiter('mail_email', settings.accountMailPerEmailPerHour, 3600, true);
  }

  /**
   * One request of a mailing action from a client IP and for an email (hashed by the caller), each counted in one
   * atomic step: the first of the two budgets spent is the answer (a refused request still counts against both).
   */
  async mailingRequest(action: MailingAction, ip: string, emailKey: string): Promise<LimitDecision> {
    const byIp = toDecision(this.settings.accountMailPerIpPerHour, await takeFrom(this.mailByIp)(`${action}:${ip}`, 1));
    const byEmail = toDecision(this.settings.accountMailPerEmailPerHour, await takeFrom(this.mailByEmail)(`${action}:${emailKey}`, 1));
    if (!byIp.allowed) return byIp;
    return byEmail;
  }

  /** Takes one request from the caller's budget when this replica's lease covers it; else undefined (ask {@link consume}). */
  consumeLocally(caller: LimitedCaller, key: string): LimitDecision | undefined {
    const { budget, points } = this.limiters[caller];
    const grant = budget.consumeLocally(key);
    return grant && toDecision(points, grant);
  }

  /** Takes one request from the caller's budget. */
  async consume(caller: LimitedCaller, key: string): Promise<LimitDecision> {
    const { budget, points } = this.limiters[caller];
    return toDecision(points, await budget.consume(key));
  }

  /**
   * One sign-in attempt for a login name (an email, hashed by the caller), counted before the password is
   * checked: refused once the window holds `loginLockoutFailures` failures. A success gives its point
   * back ({@link loginSucceeded}), so only failures stay counted. Redis down: 503 `common.err.unavailable`.
   */
  async loginAttempt(nameKey: string): Promise<LimitDecision> {
    const limit = this.settings.loginLockoutFailures;
    return toDecision(limit, await redisCall('Sign-in', () => takeFrom(this.loginFailures)(nameKey, 1)));
  }

  /** Returns the point a successful attempt took; the window's failures stay (a success resets nothing). */
  async loginSucceeded(nameKey: string): Promise<void> {
    await redisCall('Sign-in', () => this.loginFailures.reward(nameKey, 1));
  }

  /**
   * One second-factor attempt of a user, counted before the factor is checked, as {@link loginAttempt} counts a
   * password: refused for the rest of the window once it holds `twoFactorLockoutFailures` failures; a success gives
   * its point back ({@link secondFactorSucceeded}). Per user, not per address: a stolen password tried from many
   * addresses meets one budget. Redis down: 503 (a per-process count would give each replica its own tries).
   */
  async secondFactorAttempt(userId: string): Promise<LimitDecision> {
    const limit = this.settings.twoFactorLockoutFailures;
    return toDecision(limit, await redisCall('Second factor', () => takeFrom(this.secondFactorFailures)(userId, 1)));
  }

  async secondFactorSucceeded(userId: string): Promise<void> {
    await redisCall('Second factor', () => this.secondFactorFailures.reward(userId, 1));
  }

  /**
   * The failed authentications (API key pairs and cashier keys) of a client IP when they have spent its
   * budget, or null. A read: it spares the database once an address is refused; whether a failure is
   * answered 401 or 429 is decided by the atomic count in {@link authFailed}.
   */
  async authFailuresSpent(ip: string): Promise<LimitDecision | null> {
    const limit = this.settings.authFailuresPerIpPerMinute;
    const res = await this.authFailures.get(ip);
    if (!res || res.consumedPoints < limit) return null;
    return toDecision(limit, grantOf(res, false));
  }

  /** Counts one failed authentication of a client IP; not allowed once over its budget. */
  async authFailed(ip: string): Promise<LimitDecision> {
    return toDecision(this.settings.authFailuresPerIpPerMinute, await takeFrom(this.authFailures)(ip, 1));
  }

  private warn(): void {
    const now = Date.now();
    if (now - this.lastWarnAt < 10_000) return;
    this.lastWarnAt = now;
    this.log.warn('redis is unavailable: rate limits are counted per gateway process');
  }
}
