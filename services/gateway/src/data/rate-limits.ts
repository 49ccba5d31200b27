import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import { BudgetLeases, type Grant } from './budget-leases';
import type { Redis } from './redis';

export type LimitedCaller = 'api_key' | 'cashier' | 'session' | 'login_ip';

export interface RateLimitSettings {
  apiKeyPerMinute: number;
  cashierPerMinute: number;
  sessionPerMinute: number;
  loginPerIpPerMinute: number;
  loginLockoutFailures: number;
  loginLockoutSeconds: number;
}

/** What a limiter decided, in the terms of the `RateLimit-*` headers. */
export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (or the lockout ends). */
  resetSeconds: number;
}

const decision = (limit: number, res: RateLimiterRes, allowed: boolean): LimitDecision => ({
  allowed,
  limit,
  remaining: Math.max(0, res.remainingPoints),
  resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
});

const toDecision = (limit: number, grant: Grant): LimitDecision => ({
  allowed: grant.allowed,
  limit,
  remaining: Math.max(0, grant.remaining),
  resetSeconds: Math.max(1, Math.ceil(grant.msBeforeNext / 1000)),
});

/** Takes `n` requests from a key's budget in Redis; a spent budget is an answer, a Redis failure throws. */
const takeFrom =
  (limiter: RateLimiterRedis) =>
  async (key: string, n: number): Promise<Grant> => {
    try {
      const res = await limiter.consume(key, n);
      return { allowed: true, remaining: res.remainingPoints, msBeforeNext: res.msBeforeNext };
    } catch (e) {
      if (e instanceof RateLimiterRes) return { allowed: false, remaining: e.remainingPoints, msBeforeNext: e.msBeforeNext };
      throw e;
    }
  };

/**
 * Request budgets per credential and per client IP, counted in Redis so every gateway replica shares
 * them (rate-limiter-flexible's atomic Redis limiter). Large budgets are taken from Redis in small
 * leases ({@link BudgetLeases}) so a busy key does not cost a Redis round trip per request. When Redis
 * itself fails, limiting is skipped (fail open) rather than turning routes that need no Redis into 503s;
 * the outage is logged.
 */
export class RateLimits {
  private readonly limiters: Record<LimitedCaller, { budget: BudgetLeases; points: number }>;
  private readonly loginFailures: RateLimiterRedis;
  private lastWarnAt = 0;

  constructor(
    redis: Redis,
    keyPrefix: string,
    private readonly settings: RateLimitSettings,
    private readonly log: Logger,
  ) {
    const perMinute = (name: string, points: number) => ({
      points,
      budget: new BudgetLeases(
        points,
        takeFrom(
          new RateLimiterRedis({
            storeClient: redis,
            useRedisPackage: true,
            keyPrefix: `${keyPrefix}rl:${name}`,
            points,
            duration: 60,
            rejectIfRedisNotReady: true,
          }),
        ),
      ),
    });
    this.limiters = {
      api_key: perMinute('api_key', settings.apiKeyPerMinute),
      cashier: perMinute('cashier', settings.cashierPerMinute),
      session: perMinute('session', settings.sessionPerMinute),
      login_ip: perMinute('login_ip', settings.loginPerIpPerMinute),
    };
    this.loginFailures = new RateLimiterRedis({
      storeClient: redis,
      useRedisPackage: true,
      keyPrefix: `${keyPrefix}rl:login_fail`,
      points: settings.loginLockoutFailures,
      duration: settings.loginLockoutSeconds,
      rejectIfRedisNotReady: true,
    });
  }

  /** Takes one request from the caller's budget when this replica's lease covers it; else undefined (ask {@link consume}). */
  consumeLocally(caller: LimitedCaller, key: string): LimitDecision | undefined {
    const { budget, points } = this.limiters[caller];
    const grant = budget.consumeLocally(key);
    return grant && toDecision(points, grant);
  }

  /** Takes one request from the caller's budget; null when Redis could not be asked. */
  async consume(caller: LimitedCaller, key: string): Promise<LimitDecision | null> {
    const { budget, points } = this.limiters[caller];
    try {
      return toDecision(points, await budget.consume(key));
    } catch (e) {
      this.warn(e);
      return null;
    }
  }

  /** A lockout in force for this login name (an email, hashed by the caller), or null. */
  async loginLockout(nameKey: string): Promise<LimitDecision | null> {
    try {
      const res = await this.loginFailures.get(nameKey);
      if (!res || res.consumedPoints < this.settings.loginLockoutFailures) return null;
      return decision(this.settings.loginLockoutFailures, res, false);
    } catch (e) {
      this.warn(e);
      return null;
    }
  }

  async loginFailed(nameKey: string): Promise<void> {
    await this.loginFailures.consume(nameKey).catch((e: unknown) => {
      if (!(e instanceof RateLimiterRes)) this.warn(e);
    });
  }

  async loginSucceeded(nameKey: string): Promise<void> {
    await this.loginFailures.delete(nameKey).catch((e: unknown) => this.warn(e));
  }

  private warn(err: unknown): void {
    const now = Date.now();
    if (now - this.lastWarnAt < 10_000) return;
    this.lastWarnAt = now;
    this.log.warn({ err }, 'rate limiting skipped: redis is unavailable');
  }
}
