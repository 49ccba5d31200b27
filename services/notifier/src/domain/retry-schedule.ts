/** How the delivery schedule is tuned (configuration, so tests shrink it). */
export interface RetryPolicy {
  /** Delays before attempts 2..8, each counted from the previous failure. */
  delaysMs: readonly number[];
  /** The least wait after a time-out or a 429. */
  minDelayAfterThrottleMs: number;
}

/** What a failed attempt tells the schedule. */
export interface FailureHint {
  /** A time-out or a 429: the receiver is struggling. */
  throttled: boolean;
  /** The receiver's `Retry-After`, in milliseconds, when it sent one. */
  retryAfterMs: number | null;
}

const JITTER = 0.2;

/**
 * The wait before the next attempt after attempt `attemptsMade` (1-based) failed, or null when that was
 * the last one. ±20 % jitter spreads retries of many deliveries that failed together; a throttled
 * receiver gets at least the configured floor; a `Retry-After` is honoured up to twice the scheduled delay.
 */
export function nextRetryDelayMs(attemptsMade: number, hint: FailureHint, policy: RetryPolicy, random: () => number = Math.random): number | null {
  const base = policy.delaysMs[attemptsMade - 1];
  if (base === undefined) return null;
  let delay = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  if (hint.throttled) delay = Math.max(delay, policy.minDelayAfterThrottleMs);
  if (hint.retryAfterMs !== null) delay = Math.max(delay, Math.min(hint.retryAfterMs, 2 * delay));
  return delay;
}

/** `Retry-After` as delay-seconds or an HTTP date, in milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}
