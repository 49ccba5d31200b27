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
  /** `create_payment`, `get_payment`, `cancel_payment`, `create_refund`, `get_refund`; Heleket's `create_payout`, `get_payout`. */
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

export type ProviderOperation = 'create_payment' | 'get_payment' | 'cancel_payment' | 'create_refund' | 'get_refund' | 'create_payout' | 'get_payout';

/**
 * One provider's circuit: every call to that provider's API runs through `run`, whichever client makes it (Heleket's
 * payment adapter and its payouts client share one, as they share one API host), so one outage opens one circuit and
 * `provider_circuit_state{provider}` has one value.
 */
export interface ProviderCircuit {
  readonly provider: ProviderName;
  readonly state: CircuitStateName;
  /** Runs one call under the circuit, in a client span `provider <operation>`; see {@link withCircuitBreaker}. */
  run<T>(operation: ProviderOperation, work: () => Promise<T>): Promise<T>;
}

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
 * A provider's circuit breaker (cockatiel's ConsecutiveBreaker): after `failures` consecutive failures every call is
 * answered at once with ProviderUnavailableError('circuit_open') for `cooldownMs`; then one probe goes through, and its
 * success closes the circuit (its failure reopens it for another cool-down). While the probe is in flight other calls
 * are answered at once too, rather than queued behind it.
 */
export function providerCircuit(provider: ProviderName, options: BreakerOptions): ProviderCircuit {
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
  policy.onStateChange((state) => tell(() => observer?.circuit?.({ provider, state: STATE_NAMES[state] })));

  async function attempt<T>(operation: ProviderOperation, work: () => Promise<T>, span: Span): Promise<T> {
    const started = performance.now();
    const report = (outcome: ProviderCallOutcome, why: UnavailableCause | null = null) => {
      span.setAttribute('pl.provider.outcome', outcome);
      if (why) span.setAttribute('pl.provider.unavailable_cause', why);
      tell(() => observer?.call?.({ provider, operation, outcome, why, durationMs: performance.now() - started }));
    };
    if (policy.state === CircuitState.HalfOpen) {
      report('circuit_open');
      throw new ProviderUnavailableError(provider, operation, 'circuit_open');
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
        throw new ProviderUnavailableError(provider, operation, 'circuit_open', { cause: e });
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
    provider,
    get state() {
      return STATE_NAMES[policy.state];
    },
    // One client span per call, named by the operation, carrying the provider and (once known) the outcome: a trace
    // shows which provider was slow or down, and whether the breaker answered without reaching it.
    run: (operation, work) =>
      inSpan(
        `provider ${operation}`,
        { kind: SpanKind.CLIENT, attributes: { 'pl.provider': provider, 'pl.provider.operation': operation } },
        (span) => attempt(operation, work, span),
      ),
  };
}

/**
 * Wraps a provider in its circuit breaker ({@link providerCircuit}, or the one given as `{ circuit }` to share it with
 * another client of the same provider). `verifyCallback` is local work and never guarded: a callback must be judged
 * whatever the circuit says.
 */
export function withCircuitBreaker(provider: PaymentProvider, options: BreakerOptions | { readonly circuit: ProviderCircuit }): GuardedProvider {
  const circuit = 'circuit' in options ? options.circuit : providerCircuit(provider.name, options);
  if (circuit.provider !== provider.name) throw new Error(`The circuit of ${circuit.provider} cannot guard ${provider.name}`);
  const guarded = <T>(operation: ProviderOperation, work: () => Promise<T>): Promise<T> => circuit.run(operation, work);

  return {
    name: provider.name,
    ...(provider.readsByOrderId === true ? { readsByOrderId: true } : {}),
    ...(provider.cancelsPayments === true ? { cancelsPayments: true } : {}),
    get circuitState() {
      return circuit.state;
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
