import { withCircuitBreaker, type CircuitStateName, type ProviderCallEvent } from './breaker';
import { ProviderRefusedError, ProviderUnavailableError, type CallbackVerdict, type PaymentProvider, type PaymentState } from './provider';

/** A provider whose next answers the test scripts; it counts the calls that reached it. */
class ScriptedProvider implements PaymentProvider {
  readonly name = 'raiffeisen_sbp' as const;
  reached = 0;
  private next: 'ok' | 'down' | 'refuse' | 'abort' = 'ok';
  answer(next: 'ok' | 'down' | 'refuse' | 'abort'): void {
    this.next = next;
  }
  private async respond<T>(operation: string, value: T): Promise<T> {
    this.reached += 1;
    switch (this.next) {
      case 'ok':
        return value;
      case 'down':
        throw new ProviderUnavailableError(this.name, operation, 'http_5xx');
      case 'abort':
        throw new ProviderUnavailableError(this.name, operation, 'aborted');
      case 'refuse':
        throw new ProviderRefusedError(this.name, operation, 'no', 400);
    }
  }
  createPayment = () =>
    this.respond('create_payment', {
      gatewayPaymentId: 'q',
      depositAddress: 'a',
      qr: 'a',
      toCurrency: 'RUB',
      payerCurrency: 'RUB',
      payerCryptoAmount: null,
      network: 'SBP',
    });
  getPayment = () => this.respond<PaymentState | null>('get_payment', null);
  cancelPayment = () => this.respond('cancel_payment', undefined);
  createRefund = () =>
    this.respond('create_refund', {
      provider: this.name,
      refundId: 'r',
      gatewayRefundId: 'r',
      status: 'pending' as const,
      providerStatus: 'IN_PROGRESS',
    });
  getRefund = () => this.respond('get_refund', null);
  verifyCallback = (): CallbackVerdict => ({ ok: false, reason: 'signature', reply: { status: 401, contentType: 'application/json', body: '{}' } });
  availableMethods = () => Promise.resolve({ sbp: true, networks: [] });
}

const CTX = { timeoutMs: 1000 };
const REF = { gatewayPaymentId: 'q', orderId: 'o-1' };
const COOLDOWN_MS = 30_000;

function setup(failures = 3) {
  const inner = new ScriptedProvider();
  const calls: ProviderCallEvent[] = [];
  const states: CircuitStateName[] = [];
  const guarded = withCircuitBreaker(inner, {
    failures,
    cooldownMs: COOLDOWN_MS,
    observer: { call: (e) => calls.push(e), circuit: (e) => states.push(e.state) },
  });
  return { inner, guarded, calls, states };
}

const fail = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: unknown) => e,
  );

describe('provider circuit breaker', () => {
  beforeEach(() => {
    // The circuit reads the clock (Date.now) for its cool-down; only the clock is faked, so promises run as usual.
    jest.useFakeTimers({
      doNotFake: [
        'nextTick',
        'setImmediate',
        'setInterval',
        'setTimeout',
        'clearTimeout',
        'clearInterval',
        'clearImmediate',
        'queueMicrotask',
        'performance',
        'hrtime',
      ],
    });
  });
  afterEach(() => jest.useRealTimers());

  it('opens after N consecutive failures and then answers at once without calling the provider', async () => {
    const { inner, guarded, states, calls } = setup(3);
    inner.answer('down');
    for (let i = 0; i < 3; i++) expect(await fail(guarded.getPayment(REF, CTX))).toMatchObject({ why: 'http_5xx' });
    expect(guarded.circuitState).toBe('open');
    expect(states).toEqual(['open']);

    const refused = await fail(guarded.createPayment({} as never, CTX));
    expect(refused).toBeInstanceOf(ProviderUnavailableError);
    expect(refused).toMatchObject({ provider: 'raiffeisen_sbp', operation: 'create_payment', why: 'circuit_open' });
    expect(inner.reached).toBe(3);
    expect(calls.map((c) => c.outcome)).toEqual(['unavailable', 'unavailable', 'unavailable', 'circuit_open']);
    expect(calls[0]).toMatchObject({ provider: 'raiffeisen_sbp', operation: 'get_payment', why: 'http_5xx' });
  });

  it('does not open on fewer failures than N, and a success in between starts the count again', async () => {
    const { inner, guarded } = setup(3);
    inner.answer('down');
    await fail(guarded.getPayment(REF, CTX));
    await fail(guarded.getPayment(REF, CTX));
    inner.answer('ok');
    await guarded.getPayment(REF, CTX);
    inner.answer('down');
    await fail(guarded.getPayment(REF, CTX));
    await fail(guarded.getPayment(REF, CTX));
    expect(guarded.circuitState).toBe('closed');
    expect(inner.reached).toBe(5);
  });

  it('does not count refusals as failures: the provider answered', async () => {
    const { inner, guarded, calls } = setup(2);
    inner.answer('down');
    await fail(guarded.getPayment(REF, CTX));
    inner.answer('refuse');
    for (let i = 0; i < 5; i++) expect(await fail(guarded.createRefund({} as never, CTX))).toBeInstanceOf(ProviderRefusedError);
    inner.answer('down');
    await fail(guarded.getPayment(REF, CTX));
    expect(guarded.circuitState).toBe('closed');
    expect(calls.filter((c) => c.outcome === 'refused')).toHaveLength(5);
  });

  it("does not count the caller's own abort as the provider's failure", async () => {
    const { inner, guarded } = setup(2);
    inner.answer('abort');
    for (let i = 0; i < 4; i++) expect(await fail(guarded.getPayment(REF, CTX))).toMatchObject({ why: 'aborted' });
    expect(guarded.circuitState).toBe('closed');
  });

  it('lets one probe through after the cool-down and closes when it succeeds', async () => {
    const { inner, guarded, states } = setup(2);
    inner.answer('down');
    await fail(guarded.getPayment(REF, CTX));
    await fail(guarded.getPayment(REF, CTX));
    jest.advanceTimersByTime(COOLDOWN_MS - 1);
    expect(await fail(guarded.getPayment(REF, CTX))).toMatchObject({ why: 'circuit_open' });
    expect(inner.reached).toBe(2);

    jest.advanceTimersByTime(1);
    inner.answer('ok');
    await expect(guarded.getPayment(REF, CTX)).resolves.toBeNull();
    expect(guarded.circuitState).toBe('closed');
    expect(states).toEqual(['open', 'half_open', 'closed']);
    await expect(guarded.cancelPayment(REF, CTX)).resolves.toBeUndefined();
    expect(inner.reached).toBe(4);
  });

  it('answers other calls at once while the probe is in flight, and reopens for another cool-down when the probe fails', async () => {
    const { inner, guarded, states } = setup(1);
    inner.answer('down');
    await fail(guarded.getPayment(REF, CTX));
    jest.advanceTimersByTime(COOLDOWN_MS);

    const probe = fail(guarded.getPayment(REF, CTX));
    expect(guarded.circuitState).toBe('half_open');
    expect(await fail(guarded.createPayment({} as never, CTX))).toMatchObject({ why: 'circuit_open' });
    expect(await probe).toMatchObject({ why: 'http_5xx' });
    expect(guarded.circuitState).toBe('open');
    expect(await fail(guarded.getPayment(REF, CTX))).toMatchObject({ why: 'circuit_open' });
    expect(inner.reached).toBe(2);
    expect(states).toEqual(['open', 'half_open', 'open']);
  });

  it('closes when the probe is refused: a refusal proves the provider is answering', async () => {
    const { inner, guarded } = setup(1);
    inner.answer('down');
    await fail(guarded.getPayment(REF, CTX));
    jest.advanceTimersByTime(COOLDOWN_MS);
    inner.answer('refuse');
    expect(await fail(guarded.createPayment({} as never, CTX))).toBeInstanceOf(ProviderRefusedError);
    expect(guarded.circuitState).toBe('closed');
  });

  it('judges callbacks whatever the circuit says', async () => {
    const { inner, guarded } = setup(1);
    inner.answer('down');
    await fail(guarded.getPayment(REF, CTX));
    expect(guarded.circuitState).toBe('open');
    expect(guarded.verifyCallback({ rawBody: Buffer.from('{}'), header: () => undefined, remoteAddress: '127.0.0.1' })).toMatchObject({
      ok: false,
      reason: 'signature',
    });
  });
});

describe('provider circuit breaker observer', () => {
  it('never lets a throwing observer fail the call or the circuit', async () => {
    const inner = new ScriptedProvider();
    const guarded = withCircuitBreaker(inner, {
      failures: 1,
      cooldownMs: COOLDOWN_MS,
      observer: {
        call: () => {
          throw new Error('metrics down');
        },
        circuit: () => {
          throw new Error('metrics down');
        },
      },
    });
    await expect(guarded.getPayment(REF, CTX)).resolves.toBeNull();
    inner.answer('down');
    expect(await fail(guarded.getPayment(REF, CTX))).toMatchObject({ why: 'http_5xx' });
    expect(guarded.circuitState).toBe('open');
  });
});
