import { slope } from '../lib/stats';

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export interface MemoryTrend {
  firstThirdMiB: number;
  lastThirdMiB: number;
  /** Least-squares slope over the last two thirds, MiB per minute. */
  slopeMiBPerMin: number;
  verdict: 'flat' | 'grows' | 'too short';
}

/** Below this much observed life a trend says nothing (a fresh process is still warming up). */
const MIN_TREND_MS = 45_000;
/** A growth counts only when it is both this large in MiB and this large a fraction. */
const GROWTH_MIB = 20;
const GROWTH_FRACTION = 0.2;

/**
 * Compares the median RSS of the first and last thirds of the samples (time, MiB). A process that grows
 * during a three-minute soak by more than {@link GROWTH_MIB} MiB and {@link GROWTH_FRACTION} is flagged;
 * anything slower needs a longer soak to show.
 */
export function memoryTrend(samples: readonly (readonly [number, number])[]): MemoryTrend {
  const span = samples.length < 2 ? 0 : samples[samples.length - 1]![0] - samples[0]![0];
  const from = samples[0]?.[0] ?? 0;
  const third = (k: number) => samples.filter(([t]) => t >= from + (span * k) / 3 && t <= from + (span * (k + 1)) / 3).map(([, v]) => v);
  const first = median(third(0));
  const last = median(third(2));
  const tail = samples.filter(([t]) => t >= from + span / 3);
  const perMinute = slope(tail.map(([t, v]) => [t / 60_000, v] as const));
  if (span < MIN_TREND_MS) return { firstThirdMiB: first, lastThirdMiB: last, slopeMiBPerMin: perMinute, verdict: 'too short' };
  const grows = last - first > GROWTH_MIB && last > first * (1 + GROWTH_FRACTION);
  return { firstThirdMiB: first, lastThirdMiB: last, slopeMiBPerMin: perMinute, verdict: grows ? 'grows' : 'flat' };
}
