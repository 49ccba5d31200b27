import { BrokenCircuitError, circuitBreaker, CircuitState, ConsecutiveBreaker, handleWhen, IsolatedCircuitError } from 'cockatiel';
import { inSpan, SpanKind, type Span } from '@pl/telemetry';
import { ProviderRefusedError, ProviderUnavailableError, type PaymentProvider, type ProviderName, type UnavailableCause } from './provider';

/** A circuit's state as metrics and logs name it. */
export type CircuitStateName = 'closed' | 'open' | 'half_open';

/**
 * How one provider call ended: `circuit_open` is a call the breaker answered without reaching the provider;
 * `error` an unexpected throw (a bug), which says nothing about the provider.
 */
export type ProviderCallOutcome = 'ok' | 'refused' | 'unavailable' | 'circuit_open' | 'error';

export interface ProviderCallEvent {
  readonly provider: ProviderName;
  /** `create_payment`, `get_payment`, `cancel_payment`, `create_refund`, `get_refund`. */
  readonly operation: ProviderOperation;
  readonly outcome: ProviderCallOutcome;
  /** Why an `unavailable` call failed (`timeout`, `http_5xx`, ...); null otherwise. */
  readonly why: UnavailableCause | null;
  readonly durationMs: number;
}

/**
 * What a service learns from the breaker, to export as metrics (calls by provider, operation and outcome with
 * latency; the circuit's state) and logs. The library knows no registry: each service wires these to its own.
 */
export interface ProviderObserver {
  call?(event: ProviderCallEvent): void;
  circuit?(event: { readonly provider: ProviderName; readonly state: CircuitStateName }): void;
}

export interface BreakerOptions {
  /** `PROVIDER_BREAKER_FAILURES`: consecutive failures (unknown outcomes) that open the circuit. */
  readonly failures: number;
  /** `PROVIDER_BREAKER_COOLDOWN_MS`: how long the circuit stays open before one probe may pass. */
  readonly cooldownMs: number;
  readonly observer?: ProviderObserver;
}

export type ProviderOperation = 'create_payment' | 'get_payment' | 'cancel_payment' | 'create_refund' | 'get_refund';

/** A provider behind its circuit breaker, with the circuit's state for readiness and metrics. */
export interface GuardedProvider extends PaymentProvider {
  readonly circuitState: CircuitStateName;
}

const STATE_NAMES: Readonly<Record<CircuitState, CircuitStateName>> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half_open',
  [CircuitState.Isolated]: 'open',
};

/**
 * A failure is an unknown outcome the provider caused (timeout, reset, 5xx, 429, a garbled answer). The caller's
 * own abort says nothing about the provider, and a refusal proves it up, so neither counts.
 */
const isProviderFailure = (e: unknown): boolean => e instanceof ProviderUnavailableError && e.why !== 'aborted';

/** The outcome of the wrapped call, carried past cockatiel so a refusal can count as the provider being up. */
type Settled<T> = { readonly value: T } | { readonly thrown: unknown };

/**
 * Wraps a provider in a per-provider circuit breaker (cockatiel's ConsecutiveBreaker): after `failures` consecutive
 * failures every call is answered at once with ProviderUnavailableError('circuit_open') for `cooldownMs`; then one
 * probe goes through, and its success closes the circuit (its failure reopens it for another cool-down). While the
 * probe is in flight other calls are answered at once too, rather than queued behind it. `verifyCallback` is local
 * work and never guarded: a callback must be judged whatever the circuit says.
 */
export function withCircuitBreaker(provider: PaymentProvider, options: BreakerOptions): GuardedProvider {
  const policy = circuitBreaker(handleWhen(isProviderFailure), {
    breaker: new ConsecutiveBreaker(options.failures),
    halfOpenAfter: options.cooldownMs,
  });
  const observer = options.observer;
  // A metric that throws must not fail a payment, nor leave cockatiel's state change half-announced.
  const tell = (notify: () => void) => {
    try {
      notify();
    } catch {
      // ignored: observing is best effort
    }
  };
  policy.onStateChange((state) => tell(() => observer?.circuit?.({ provider: provider.name, state: STATE_NAMES[state] })));

  // One client span per call, named by the operation, carrying the provider and (once known) the outcome: a trace
  // shows which provider was slow or down, and whether the breaker answered without reaching it.
  const guarded = <T>(operation: ProviderOperation, work: () => Promise<T>): Promise<T> =>
    inSpan(
      `provider ${operation}`,
      { kind: SpanKind.CLIENT, attributes: { 'pl.provider': provider.name, 'pl.provider.operation': operation } },
      (span) => attempt(operation, work, span),
    );

  async function attempt<T>(operation: ProviderOperation, work: () => Promise<T>, span: Span): Promise<T> {
    const started = performance.now();
    const report = (outcome: ProviderCallOutcome, why: UnavailableCause | null = null) => {
      span.setAttribute('pl.provider.outcome', outcome);
      if (why) span.setAttribute('pl.provider.unavailable_cause', why);
      tell(() => observer?.call?.({ provider: provider.name, operation, outcome, why, durationMs: performance.now() - started }));
    };
    if (policy.state === CircuitState.HalfOpen) {
      report('circuit_open');
      throw new ProviderUnavailableError(provider.name, operation, 'circuit_open');
    }
    let settled: Settled<T>;
    try {
      settled = await policy.execute(async (): Promise<Settled<T>> => {
        try {
          return { value: await work() };
        } catch (e) {
          // Failures count; the caller's abort passes through uncounted; anything else proves the provider answered.
          if (e instanceof ProviderUnavailableError) throw e;
          return { thrown: e };
        }
      });
    } catch (e) {
      if (e instanceof BrokenCircuitError || e instanceof IsolatedCircuitError) {
        report('circuit_open');
        throw new ProviderUnavailableError(provider.name, operation, 'circuit_open', { cause: e });
      }
      if (e instanceof ProviderUnavailableError) report('unavailable', e.why);
      else report('error');
      throw e;
    }
    if ('thrown' in settled) {
      const e = settled.thrown;
      report(e instanceof ProviderRefusedError ? 'refused' : 'error');
      throw e;
    }
    report('ok');
    return settled.value;
  }

  return {
    name: provider.name,
    ...(provider.readsByOrderId === true ? { readsByOrderId: true } : {}),
    ...(provider.cancelsPayments === true ? { cancelsPayments: true } : {}),
    get circuitState() {
      return STATE_NAMES[policy.state];
    },
    createPayment: (request, ctx) => guarded('create_payment', () => provider.createPayment(request, ctx)),
    getPayment: (ref, ctx) => guarded('get_payment', () => provider.getPayment(ref, ctx)),
    cancelPayment: (ref, ctx) => guarded('cancel_payment', () => provider.cancelPayment(ref, ctx)),
    createRefund: (request, ctx) => guarded('create_refund', () => provider.createRefund(request, ctx)),
    getRefund: (ref, ctx) => guarded('get_refund', () => provider.getRefund(ref, ctx)),
    verifyCallback: (request) => provider.verifyCallback(request),
    // A read the adapter caches and answers from its last known list when it can: not a call the circuit counts.
    availableMethods: (ctx) => provider.availableMethods(ctx),
  };
}
