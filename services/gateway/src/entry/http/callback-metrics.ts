import type { CallbackRefusal } from '@pl/providers';
import { Counter, type Registry } from '@pl/telemetry';

/** What the callback route counts: each provider's verified callbacks, and its refused ones by reason. */
export interface CallbackCounter {
  verified(provider: string): void;
  refused(provider: string, reason: CallbackRefusal): void;
  /** A verified callback naming a payment the platform never made. */
  unknown(provider: string): void;
}

const REFUSALS: readonly CallbackRefusal[] = ['signature', 'address', 'malformed'];

/**
 * `provider_callbacks_total{provider, outcome, reason}`: outcome `verified` (reason empty) or `refused` with the
 * reason, so an alert can watch refusals per provider. Every series of the known providers starts at 0.
 */
export function callbackCounter(metrics: Registry, providers: readonly string[]): CallbackCounter {
  const counter = new Counter({
    name: 'provider_callbacks_total',
    help: 'Provider callbacks received, by provider and outcome (verified, or refused by reason: signature, address, malformed)',
    labelNames: ['provider', 'outcome', 'reason'],
    registers: [metrics],
  });
  // Apart from the verified ones (each is also counted there): a provider's word about something never made here is
  // for an operator to look at (an alert watches it), whether a misrouted account, a test, or a record lost.
  const unknown = new Counter({
    name: 'provider_callbacks_unknown_total',
    help: 'Verified provider callbacks for a payment the platform never made (answered 200, nothing changed), by provider',
    labelNames: ['provider'],
    registers: [metrics],
  });
  for (const provider of providers) {
    counter.labels(provider, 'verified', '').inc(0);
    for (const reason of REFUSALS) counter.labels(provider, 'refused', reason).inc(0);
    unknown.labels(provider).inc(0);
  }
  return {
    verified: (provider) => counter.labels(provider, 'verified', '').inc(),
    refused: (provider, reason) => counter.labels(provider, 'refused', reason).inc(),
    unknown: (provider) => unknown.labels(provider).inc(),
  };
}
