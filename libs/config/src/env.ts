import { z } from 'zod';

/**
 * Building blocks of the services' environment schemas, so every setting of one kind (a port, a bounded number,
 * a flag, a Kafka topic) is read, bounded and reported the same way in every service.
 */

/** A TCP port (0 lets the system pick one, as tests do). */
export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** An integer setting (a count, a duration in ms or s) of at least `min` and, when given, at most `max`. */
export function intSetting(bounds: { min: number; max?: number; default: number }) {
  const atLeast = z.coerce.number().int().min(bounds.min);
  return (bounds.max === undefined ? atLeast : atLeast.max(bounds.max)).default(bounds.default);
}

/** `true` or `false` exactly (no `1`, `yes` or empty string, which would hide a typo), `false` when unset. */
export const flag = z
  .enum(['true', 'false'])
  .default('false')
  .transform((v) => v === 'true');

/** A Kafka topic name as brokers accept it. */
export const kafkaTopic = (fallback: string) =>
  z
    .string()
    .regex(/^[a-zA-Z0-9._-]{1,249}$/)
    .default(fallback);

/** Roubles as the API writes them (`1000000.00`, `0`), read as kopecks. */
export function roublesSetting(fallback: string) {
  return z
    .string()
    .regex(/^\d{1,11}(\.\d{1,2})?$/, 'must be roubles with at most two decimals')
    .default(fallback)
    .transform((text) => {
      const [whole = '0', fraction = ''] = text.split('.');
      return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
    });
}
