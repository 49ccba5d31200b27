import { Gauge, Histogram, type Logger, type Registry } from '@pl/telemetry';
import type { CircuitStateName, ProviderObserver } from './breaker';
import type { ProviderName } from './provider';

/** The providers that sit behind a circuit breaker (the sandbox never does). */
const GUARDED: readonly ProviderName[] = ['raiffeisen_sbp', 'heleket'];

/** A provider call takes up to PROVIDER_REQUEST_TIMEOUT_MS (8 s by default): the buckets reach past it. */
const CALL_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** `provider_circuit_state`'s values: an alert asks for `== 2` (open) held for 5 minutes. */
const STATE_VALUES: Readonly<Record<CircuitStateName, number>> = { closed: 0, half_open: 1, open: 2 };

/**
 * What a service exports of its live providers (docs/adr/0026-provider-outages-and-metrics.md):
 * - `provider_call_duration_seconds{provider, operation, outcome}`: every call and its latency (`_count` is the calls);
 * - `provider_circuit_state{provider}`: 0 closed, 1 half-open (one probe in flight), 2 open;
 * - a log line once when a circuit opens (warn) and once when it closes again (info). A probe that fails reopens the
 *   circuit without a new warning: the outage is the same one, and one line per cool-down would bury it.
 * No request, answer or credential is logged: only the provider, the operation and the outcome.
 */
export function providerMetrics(metrics: Registry, log: Logger): ProviderObserver {
  const calls = new Histogram({
    name: 'provider_call_duration_seconds',
    help: 'Calls to live payment providers by provider, operation and outcome (ok, refused, unavailable, circuit_open, error), with their latency',
    labelNames: ['provider', 'operation', 'outcome'],
    buckets: CALL_BUCKETS,
    registers: [metrics],
  });
  const circuit = new Gauge({
    name: 'provider_circuit_state',
    help: "A live provider's circuit breaker: 0 closed, 1 half-open (a probe in flight), 2 open (calls answered 503 at once)",
    labelNames: ['provider'],
    registers: [metrics],
  });
  for (const provider of GUARDED) circuit.labels(provider).set(0);
  const announced = new Map<ProviderName, 'open' | 'closed'>();

  return {
    call(event) {
      calls.labels(event.provider, event.operation, event.outcome).observe(event.durationMs / 1000);
    },
    circuit({ provider, state }) {
      circuit.labels(provider).set(STATE_VALUES[state]);
      const last = announced.get(provider) ?? 'closed';
      if (state === 'open' && last === 'closed') {
        announced.set(provider, 'open');
        log.warn({ provider, circuit: state }, 'provider circuit opened: its calls are answered 503 until a probe after the cool-down succeeds');
      } else if (state === 'closed' && last === 'open') {
        announced.set(provider, 'closed');
        log.info({ provider, circuit: state }, 'provider circuit closed: a probe succeeded, calls go through again');
      }
    },
  };
}
