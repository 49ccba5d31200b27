import { nextRetryDelayMs, parseRetryAfter, type RetryPolicy } from './retry-schedule';

const policy: RetryPolicy = { delaysMs: [10_000, 60_000, 600_000, 3_600_000, 21_600_000, 86_400_000, 144_000_000], minDelayAfterThrottleMs: 60_000 };
const plain = { throttled: false, retryAfterMs: null };
const middle = () => 0.5;

describe('nextRetryDelayMs', () => {
  it('follows the schedule from the previous failure and ends after the 8th attempt', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => nextRetryDelayMs(n, plain, policy, middle))).toEqual(policy.delaysMs);
    expect(nextRetryDelayMs(8, plain, policy, middle)).toBeNull();
  });

  it('keeps the jitter within ±20 %', () => {
    expect(nextRetryDelayMs(1, plain, policy, () => 0)).toBe(8_000);
    expect(nextRetryDelayMs(1, plain, policy, () => 0.999999)).toBeCloseTo(12_000, -1);
  });

  it('waits at least the throttle floor after a time-out or a 429', () => {
    expect(nextRetryDelayMs(1, { throttled: true, retryAfterMs: null }, policy, () => 0)).toBe(60_000);
    expect(nextRetryDelayMs(3, { throttled: true, retryAfterMs: null }, policy, middle)).toBe(600_000);
  });

  it('honours a Retry-After up to twice the scheduled delay', () => {
    expect(nextRetryDelayMs(2, { throttled: false, retryAfterMs: 90_000 }, policy, middle)).toBe(90_000);
    expect(nextRetryDelayMs(2, { throttled: false, retryAfterMs: 3_600_000 }, policy, middle)).toBe(120_000);
    expect(nextRetryDelayMs(2, { throttled: false, retryAfterMs: 1_000 }, policy, middle)).toBe(60_000);
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates and ignores junk', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
