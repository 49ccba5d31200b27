import type { CryptoNetwork } from '@pl/contracts';
import { ProviderUnavailableError, type CallContext } from '../provider';
import { platformNetworkOf } from './networks';

/** One of the platform's networks as Heleket's services list (`POST /v1/payment/services`) describes it. */
export interface HeleketNetworkService {
  readonly network: CryptoNetwork;
  /** Heleket can take payments on it now (`is_available`). */
  readonly available: boolean;
  /** Enabled in the merchant's profile (`is_enabled`). */
  readonly enabled: boolean;
  /** The limits as Heleket writes them (decimal strings, in the coin; see docs/providers.md), or null when absent. */
  readonly minAmount: string | null;
  readonly maxAmount: string | null;
}

/** The spec's ceiling on how stale the checkout's list of networks may be. */
export const SERVICES_TTL_MS = 10 * 60 * 1000;

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : null);

/** The services list's items for the platform's networks; anything else in it is ignored. */
export function parseServices(result: unknown): HeleketNetworkService[] {
  if (!Array.isArray(result)) throw new ProviderUnavailableError('heleket', 'services', 'bad_answer');
  const services: HeleketNetworkService[] = [];
  for (const item of result as unknown[]) {
    if (!isRecord(item) || typeof item.currency !== 'string' || typeof item.network !== 'string') continue;
    const network = platformNetworkOf(item.currency, item.network);
    if (network === null) continue;
    const limit = isRecord(item.limit) ? item.limit : {};
    services.push({
      network,
      available: item.is_available === true,
      enabled: item.is_enabled === true,
      minAmount: text(limit.min_amount),
      maxAmount: text(limit.max_amount),
    });
  }
  return services;
}

/**
 * Reads the list at most once per `ttlMs`: one request serves every caller that asks while it is in flight, and a
 * failed read is not kept (the next caller tries again), so an outage is not remembered for ten minutes.
 */
export function cachedServices(
  read: (ctx: CallContext) => Promise<HeleketNetworkService[]>,
  now: () => number,
  ttlMs = SERVICES_TTL_MS,
): (ctx: CallContext) => Promise<readonly HeleketNetworkService[]> {
  let cached: { readonly at: number; readonly value: Promise<HeleketNetworkService[]> } | null = null;
  return (ctx) => {
    const at = now();
    if (cached !== null && at - cached.at < ttlMs) return cached.value;
    const entry = { at, value: read(ctx) };
    cached = entry;
    entry.value.catch(() => {
      if (cached === entry) cached = null;
    });
    return entry.value;
  };
}

/** How long a failed read of the list is not tried again while a last known list answers in its place. */
const SERVICES_RETRY_AFTER_FAILURE_MS = 60 * 1000;

/**
 * The list as the checkout needs it when Heleket may be down: the last list read answers while a fresh one cannot be
 * had (a network that was on stays offered, and Heleket's own refusal answers a select it no longer takes), and a
 * failed read is not repeated for a minute so a down Heleket does not hold every checkout for its timeout. With no
 * list ever read, the failure is the caller's to judge.
 */
export function lastKnownServices(
  read: (ctx: CallContext) => Promise<readonly HeleketNetworkService[]>,
  now: () => number,
  retryAfterMs = SERVICES_RETRY_AFTER_FAILURE_MS,
): (ctx: CallContext) => Promise<readonly HeleketNetworkService[]> {
  let known: readonly HeleketNetworkService[] | null = null;
  let failedAt: number | null = null;
  return async (ctx) => {
    if (known !== null && failedAt !== null && now() - failedAt < retryAfterMs) return known;
    try {
      known = await read(ctx);
      failedAt = null;
    } catch (e) {
      if (known === null || !(e instanceof ProviderUnavailableError)) throw e;
      failedAt = now();
    }
    return known;
  };
}
